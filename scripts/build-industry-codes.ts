/**
 * Writes the migration that loads the NAICS 2022 code list (src/modules/industries/naics-2022.tsv) into
 * industry_codes. Run once when the list changes (a new NAICS revision gets a new list and a new
 * migration); test/unit/industry-codes.test.ts checks that the migration holds exactly the list.
 *
 *   npx tsx scripts/build-industry-codes.ts src/db/migrations/0014_industry_codes.sql
 */
import fs from 'node:fs';
import { industryCodesSql, readIndustryCodes } from '../src/modules/industries/industry-codes.ts';

const target = process.argv[2];
if (!target) throw new Error('usage: build-industry-codes.ts <migration file>');
fs.writeFileSync(target, industryCodesSql(readIndustryCodes()));

/**
 * Writes the migrations that load the reference data shipped with Hearth from their lists: the NAICS 2022
 * codes (src/modules/industries/naics-2022.tsv → 0014_industry_codes.sql) and the technographic product
 * catalog (src/modules/tech-products/tech-products.tsv → 0015_tech_products.sql). Run it when a list
 * changes before its migration is released; a changed list after that comes as a new migration. The unit
 * tests of both lists check that the migrations hold them exactly.
 *
 *   npx tsx scripts/build-reference-data.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { industryCodesSql, readIndustryCodes } from '../src/modules/industries/industry-codes.ts';
import { catalogSql, readCatalog } from '../src/modules/tech-products/tech-product-catalog.ts';

const migrations = path.join(import.meta.dirname, '../src/db/migrations');
fs.writeFileSync(path.join(migrations, '0014_industry_codes.sql'), industryCodesSql(readIndustryCodes()));
fs.writeFileSync(path.join(migrations, '0015_tech_products.sql'), catalogSql(readCatalog()));

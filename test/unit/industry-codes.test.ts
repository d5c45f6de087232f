import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { industryCodesSql, readIndustryCodes } from '../../src/modules/industries/industry-codes.ts';

const MIGRATION = path.join(import.meta.dirname, '../../src/db/migrations/0014_industry_codes.sql');

/** The NAICS 2022 list shipped in src/modules/industries, and the migration made from it. */
describe('industry codes (NAICS 2022)', () => {
  const codes = readIndustryCodes();

  it('holds every level of NAICS 2022 in the published numbers', () => {
    const perLevel = new Map<number, number>();
    for (const { code } of codes) perLevel.set(String(code).length, (perLevel.get(String(code).length) ?? 0) + 1);
    // 20 sectors, three of them ranges (31-33, 44-45, 48-49) with a line per two-digit code: 24 lines.
    expect(Object.fromEntries(perLevel)).toEqual({ 2: 24, 3: 96, 4: 308, 5: 689, 6: 1012 });
    expect(new Set(codes.map(({ code }) => code)).size).toBe(codes.length);
  });

  it('has every code under a parent of each shorter length, and no empty or padded name', () => {
    const known = new Set(codes.map(({ code }) => String(code)));
    for (const { code, name } of codes) {
      const digits = String(code);
      for (let length = 2; length < digits.length; length++) expect(known.has(digits.slice(0, length)), digits).toBe(true);
      expect(name.trim()).toBe(name);
      expect(name.length).toBeGreaterThan(2);
    }
  });

  it('names the 2022 revision, not 2017', () => {
    const name = new Map(codes.map((row) => [row.code, row.name]));
    expect(name.get(513210)).toBe('Software Publishers');
    expect(name.get(518210)).toBe('Computing Infrastructure Providers, Data Processing, Web Hosting, and Related Services');
    expect(name.get(455211)).toBe('Warehouse Clubs and Supercenters');
    expect(name.get(31)).toBe('Manufacturing');
    expect(name.get(33)).toBe('Manufacturing');
    expect(name.has(5112)).toBe(false);
    expect(name.has(511210)).toBe(false);
  });

  it('is loaded by migration 0014 exactly as listed (scripts/build-reference-data.ts wrote it)', () => {
    expect(fs.readFileSync(MIGRATION, 'utf8')).toBe(industryCodesSql(codes));
  });
});

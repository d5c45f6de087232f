import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogSql, readCatalog } from '../../src/modules/tech-products/tech-product-catalog.ts';

const MIGRATION = path.join(import.meta.dirname, '../../src/db/migrations/0015_tech_products.sql');

/** The technographic catalog shipped in src/modules/tech-products, and the migration made from it. */
describe('tech product catalog', () => {
  const products = readCatalog();

  it('names each product once (in any case), with a vendor, trimmed, sorted by name', () => {
    expect(products.length).toBeGreaterThan(500);
    const names = products.map((row) => row.product.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    for (const { product, vendor } of products) {
      expect(product.trim()).toBe(product);
      expect(vendor.trim()).toBe(vendor);
      expect(vendor.length).toBeGreaterThan(0);
    }
    expect(products.find((row) => row.product === 'PostgreSQL')).toEqual({ product: 'PostgreSQL', vendor: 'PostgreSQL Global Development Group' });
  });

  it('is loaded by migration 0015 exactly as listed, with IDs in the list’s order (scripts/build-reference-data.ts wrote it)', () => {
    expect(fs.readFileSync(MIGRATION, 'utf8')).toBe(catalogSql(products));
  });
});

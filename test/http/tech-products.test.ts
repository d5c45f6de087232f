import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalog } from '../../src/modules/tech-products/tech-product-catalog.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { walkPages, withQuery } from '../helpers/paging.ts';

type Product = { id: string; product: string; vendor: string };
type Page = { success: true; data: Product[]; meta: { nextCursor: string | null } };

/**
 * GET /api/v2/tech-stack-products and POST /api/v2/admin/tech-products (docs/reading.md, Technographic
 * products; docs/behaviour.md, IDs and Scopes).
 */
describe.each(ENGINES)('technographic products (%s)', (engine) => {
  let t: TestApp;
  const list = (params: Record<string, string | number | null>, token = t.token) => t.get(withQuery('/api/v2/tech-stack-products', params), token);
  const found = async (query: string) => {
    const response = await list({ query, limit: 1000 });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Page).data;
  };
  const importProducts = (products: unknown, token = t.token) => t.send('POST', '/api/v2/admin/tech-products', { products }, token);

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  it('lists the shipped catalog by product name, case-insensitively, with stable IDs', async () => {
    const shipped = readCatalog();
    const walked = await walkPages<Product>((cursor) => list({ limit: 400, cursor }), 400);
    expect(walked).toHaveLength(shipped.length);
    const lower = walked.map((row) => row.product.toLowerCase());
    expect(lower).toEqual([...lower].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(walked.find((row) => row.product === 'PostgreSQL')).toEqual({
      id: `p_${shipped.findIndex((row) => row.product === 'PostgreSQL') + 1}`,
      product: 'PostgreSQL',
      vendor: 'PostgreSQL Global Development Group',
    });
    expect(((await list({})).json() as Page).meta).toEqual({ nextCursor: expect.any(String) });
  });

  it('finds products by words of their name or their vendor’s, in any order and case', async () => {
    expect((await found('postgresql')).map((row) => row.product)).toContain('PostgreSQL');
    const microsoft = await found('MICROSOFT');
    expect(microsoft.length).toBeGreaterThan(5);
    expect(microsoft.every((row) => `${row.product} ${row.vendor}`.toLowerCase().includes('microsoft'))).toBe(true);
    expect(await found('azure microsoft')).toEqual(await found('Microsoft AZURE'));
    expect(await found('no such product anywhere')).toEqual([]);
    expect(await found('%')).toEqual([]);
  });

  it('takes products from an admin: new ones added, known ones (in any case) given the new vendor, all or nothing', async () => {
    const response = await importProducts([
      { product: 'Hearth', vendor: 'The Hearth Project' },
      { product: 'postgresql', vendor: 'The PostgreSQL Global Development Group' },
      { product: 'Kubernetes', vendor: 'Cloud Native Computing Foundation' },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { added: 1, changed: 1, unchanged: 1 } });
    expect(await found('hearth')).toEqual([{ id: expect.stringMatching(/^p_\d+$/), product: 'Hearth', vendor: 'The Hearth Project' }]);
    // The known product keeps its spelling and takes the vendor.
    expect((await found('postgresql')).find((row) => row.product === 'PostgreSQL')?.vendor).toBe('The PostgreSQL Global Development Group');

    const bad = await importProducts([
      { product: 'Fine Product', vendor: 'Fine' },
      { product: '  ', vendor: 'Nobody' },
      { product: 'Twice', vendor: 'A' },
      { product: 'TWICE', vendor: 'B' },
      { product: 'No Vendor', vendor: ' ' },
    ]);
    expect(bad.statusCode).toBe(400);
    const message = (bad.json() as { error: { message: string } }).error.message;
    for (const fault of ['products[1].product must not be empty', 'products[3].product "TWICE" is products[2] again', 'products[4].vendor must not be empty']) {
      expect(message).toContain(fault);
    }
    expect(await found('fine product')).toEqual([]);
    expect((await importProducts([])).statusCode).toBe(400);
    expect((await importProducts([{ product: 'X', vendor: 'Y', extra: 1 }])).statusCode).toBe(400);
    const audit = await t.services.db.selectFrom('audit_log').select(['operation', 'detail']).where('operation', '=', 'tech_products.import').execute();
    expect(audit).toEqual([{ operation: 'tech_products.import', detail: { products: 3, added: 1, changed: 1, unchanged: 1 } }]);
  });

  it('reads with organizations:read, imports with admin only', async () => {
    expect((await list({}, await t.issueToken(['organizations:read']))).statusCode).toBe(200);
    expect((await list({}, await t.issueToken(['contacts:read']))).statusCode).toBe(403);
    expect((await importProducts([{ product: 'Z', vendor: 'Z' }], await t.issueToken(['read', 'write']))).statusCode).toBe(403);
    for (const params of [{ sort: 'product' }, { cols: 'recordCount' }, { limit: 0 }, { cursor: 'x' }] as Record<string, string | number>[]) {
      const response = await list(params);
      expect(response.statusCode, JSON.stringify(params)).toBe(400);
      expect(response.body).toContain(Object.keys(params)[0]);
    }
  });
});

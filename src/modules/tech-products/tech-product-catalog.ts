import fs from 'node:fs';
import path from 'node:path';

/**
 * The catalog of technographic products shipped with Hearth (tech-products.tsv beside this file: a
 * product and its vendor per line, written for Hearth and released under its Apache-2.0 licence; see the
 * README). Admins add to it over the API; prospector companies name their technologies by product.
 */
export const CATALOG_FILE = path.join(import.meta.dirname, 'tech-products.tsv');

export interface CatalogProduct {
  product: string;
  vendor: string;
}

export function readCatalog(file = CATALOG_FILE): CatalogProduct[] {
  const [header, ...lines] = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  if (header !== 'product\tvendor') throw new Error(`${file}: the first line must be "product<TAB>vendor"`);
  return lines.map((line, index) => {
    const [product, vendor, extra] = line.split('\t');
    if (!product?.trim() || !vendor?.trim() || extra !== undefined) throw new Error(`${file}:${index + 2}: expected a product, a tab and a vendor`);
    return { product, vendor };
  });
}

/** The migration that loads the catalog: IDs 1, 2, ... in the file's order, so every install has the same `p_N`. */
export function catalogSql(products: CatalogProduct[]): string {
  const text = (value: string) => `'${value.replaceAll("'", "''")}'`;
  const rows = products.map(({ product, vendor }, index) => `  (${index + 1}, ${text(product)}, ${text(vendor)})`);
  return [
    '-- The technographic product catalog (GET /api/v2/tech-stack-products), written by',
    '-- scripts/build-reference-data.ts from src/modules/tech-products/tech-products.tsv. Products are',
    '-- unique by name in any case; admins add more over the API (POST /api/v2/admin/tech-products).',
    'create unique index tech_products_product on tech_products (lower(product));',
    'insert into tech_products (id, product, vendor) values',
    `${rows.join(',\n')};`,
    "select setval(pg_get_serial_sequence('tech_products', 'id'), (select max(id) from tech_products));",
    '',
  ].join('\n');
}

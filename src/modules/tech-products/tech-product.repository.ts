import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorPosition } from '../../core/cursor.ts';
import { keysetPage } from '../../db/keyset.ts';
import { hasEveryWord } from '../../core/query-fragments.ts';
import type { Executor } from '../../core/executor.ts';

/**
 * A page of the catalog by product name (case-insensitive, ties by ID); every word of `words` must be in
 * the product's name or its vendor's, whatever its case.
 */
export function pageTechProducts(db: Kysely<DB>, request: { words: string[]; limit: number; after: CursorPosition | null }) {
  let query = db.selectFrom('tech_products').select(['id', 'product', 'vendor']);
  for (const condition of hasEveryWord(sql`product || ' ' || vendor`, request.words)) query = query.where(condition);
  return keysetPage(query, { keys: [{ expr: sql`lower(product)` }], id: sql`id`, direction: 'asc', limit: request.limit, after: request.after });
}

/**
 * Adds the products, or gives those already in the catalog (by name in any case) the vendor given; the
 * name keeps the spelling it has. Returns how many were added and how many changed.
 */
export async function upsertTechProducts(trx: Transaction<DB>, products: { product: string; vendor: string }[]) {
  const result = await sql<{ added: number; changed: number }>`
    with given as (
      select * from unnest(${products.map((p) => p.product)}::text[], ${products.map((p) => p.vendor)}::text[]) as g(product, vendor)
    ), written as (
      insert into tech_products (product, vendor) select product, vendor from given
      on conflict (lower(product)) do update set vendor = excluded.vendor
      where tech_products.vendor is distinct from excluded.vendor
      returning (xmax = 0) as added
    )
    select count(*) filter (where added)::int as added, count(*) filter (where not added)::int as changed from written`.execute(trx);
  return result.rows[0]!;
}

/**
 * The catalog's spelling of each name given that it holds, in any case (`salesforce` → `Salesforce`), by
 * the name as given; names it does not hold are absent. One read of the catalog's index on lower(product).
 */
export async function catalogSpellings(db: Executor, names: string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const result = await sql<{ given: string; product: string }>`
    select g.given, t.product from unnest(${names}::text[]) as g(given) join tech_products t on lower(t.product) = lower(g.given)`.execute(db);
  return new Map(result.rows.map((row) => [row.given, row.product]));
}

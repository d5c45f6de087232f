import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CursorCodec } from '../../core/cursor.ts';
import { invalidParameters } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import type { PageRequest } from '../../core/list-query.ts';
import { pageWithCursor } from '../../core/paging.ts';
import { searchWords } from '../../core/query-fragments.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { pageTechProducts, upsertTechProducts } from './tech-product.repository.ts';

export function createTechProductService(deps: { db: Kysely<DB>; cursors: CursorCodec }) {
  return {
    /** GET /api/v2/tech-stack-products: by product name, `query` words in the product's or vendor's name. */
    async list(communityId: number, query: { page: PageRequest; query?: string }) {
      const words = searchWords(query.query);
      const binding = { community: communityId, list: 'tech-stack-products', sort: 'product', direction: 'asc' as const, filters: { words } };
      const page = await pageWithCursor(deps.cursors, binding, query.page, (after) => pageTechProducts(deps.db, { words, limit: query.page.limit, after }));
      return {
        data: page.rows.map((row) => ({ id: formatId('tech_product', Number(row.id)), product: row.product, vendor: row.vendor })),
        meta: { nextCursor: page.nextCursor },
      };
    },

    /**
     * POST /api/v2/admin/tech-products: adds products to the catalog every community shares, or changes the
     * vendor of those it has (by name, in any case). All or nothing: every fault of the request is named.
     */
    async import(writer: Writer, given: { product: string; vendor: string }[]) {
      const faults: string[] = [];
      const seen = new Map<string, number>();
      const products = given.map(({ product, vendor }, index) => {
        const item = { product: product.trim(), vendor: vendor.trim() };
        if (!item.product) faults.push(`products[${index}].product must not be empty`);
        if (!item.vendor) faults.push(`products[${index}].vendor must not be empty`);
        const key = item.product.toLowerCase();
        const first = seen.get(key);
        if (item.product && first !== undefined) faults.push(`products[${index}].product "${item.product}" is products[${first}] again`);
        else seen.set(key, index);
        return item;
      });
      if (faults.length) throw invalidParameters(faults.join('; '));
      return deps.db.transaction().execute(async (trx) => {
        const { added, changed } = await upsertTechProducts(trx, products);
        const counts = { added, changed, unchanged: products.length - added - changed };
        await auditTx.recordWrite(trx, writer, { operation: 'tech_products.import', entityIds: [], detail: { products: products.length, ...counts } });
        return counts;
      });
    },
  };
}

export type TechProductService = ReturnType<typeof createTechProductService>;

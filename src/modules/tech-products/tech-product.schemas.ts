import Type from 'typebox';
import { Cursor, CursorMeta, Limit, v2Item, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

/** The most products one import request adds or changes. */
export const MAX_PRODUCTS_PER_IMPORT = 10_000;

export const TechProduct = component(
  'TechProduct',
  Type.Object({
    id: Type.String({ description: 'p_N' }),
    product: Type.String(),
    vendor: Type.String(),
  }),
);

export const TechProductsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    query: Type.Optional(Type.String({ maxLength: 200, description: 'Words that must all be in the product’s name or its vendor’s, in any order and case.' })),
  },
  { additionalProperties: false },
);

export const TechProductsResponse = v2Page(TechProduct, CursorMeta);

export const TechProductImportBody = Type.Object(
  {
    products: Type.Array(Type.Object({ product: Type.String({ maxLength: 200 }), vendor: Type.String({ maxLength: 200 }) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: MAX_PRODUCTS_PER_IMPORT,
    }),
  },
  { additionalProperties: false },
);

export const TechProductImportResponse = v2Item(
  Type.Object({
    added: Type.Integer({ description: 'Products new to the catalog' }),
    changed: Type.Integer({ description: 'Products already in it (by name, in any case) whose vendor changed' }),
    unchanged: Type.Integer(),
  }),
);

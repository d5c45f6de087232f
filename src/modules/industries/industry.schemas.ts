import Type from 'typebox';
import { Cursor, CursorMeta, Limit, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const IndustryCode = component(
  'IndustryCode',
  Type.Object({
    id: Type.String({ description: 'naics_<code>' }),
    code: Type.Integer({ description: 'The NAICS 2022 code: 2 digits (sector) to 6 (national industry)' }),
    name: Type.String(),
  }),
);

export const IndustriesQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    query: Type.Optional(
      Type.String({ maxLength: 200, description: 'Words that must all be in the name, in any order and case; a word of digits may instead start the code.' }),
    ),
  },
  { additionalProperties: false },
);

export const IndustriesResponse = v2Page(IndustryCode, CursorMeta);

import Type, { type TSchema } from 'typebox';
import { component } from './components.ts';

/** Response and parameter schemas shared by every module. */

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PageMeta = Type.Object({
  nextCursor: Nullable(Type.String({ description: 'Pass back as `cursor` for the next page; null on the last page.' })),
  recordCount: Type.Optional(Type.Integer({ description: 'Present when `cols` names `recordCount`.' })),
});

/** Lists whose meta has only a cursor (providers, industry codes, tech products, job titles). */
export const CursorMeta = Type.Object({ nextCursor: PageMeta.properties.nextCursor });

export const v2Item = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

export const v2Definitions = <T extends TSchema>(item: T) => Type.Object({ success: Type.Literal(true), data: Type.Array(item) });

export const v2Page = <T extends TSchema, M extends TSchema>(item: T, meta: M) => Type.Object({ success: Type.Literal(true), data: Type.Array(item), meta });

export const Limit = Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size, 1..1000.' });
export const Cursor = Type.String({ minLength: 1, description: '`meta.nextCursor` of the previous page.' });
export const Direction = Type.Enum(['asc', 'desc'], { default: 'asc', description: 'Sort direction.' });

export const V2Error = component(
  'V2Error',
  Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({
        code: Type.String(),
        message: Type.String(),
        invalidIds: Type.Optional(Type.Array(Type.String())),
      }),
    },
    { description: 'v2 error' },
  ),
);

export const CoreError = component(
  'CoreError',
  Type.Object(
    {
      reason: Type.String(),
      docs: Type.Optional(Type.String()),
      detail: Type.Optional(Type.String()),
      status: Type.Optional(Type.String()),
    },
    { description: 'core error: 400 {reason, docs, detail}, 404 {status: "not-found", reason}' },
  ),
);

export const Forbidden = component(
  'Forbidden',
  Type.Object(
    { status: Type.Literal('forbidden'), reason: Type.Optional(Type.String()) },
    { description: 'Missing, invalid, expired or revoked token, or a missing scope' },
  ),
);

export const RateLimited = component(
  'RateLimited',
  Type.Object(
    {
      reason: Type.String(),
      rateLimit: Type.Object({
        intervalLimit: Type.Integer(),
        intervalRemaining: Type.Integer(),
        intervalResetSeconds: Type.Integer(),
        waitMs: Type.Integer(),
      }),
    },
    { description: 'Too many requests for this token (or client address) in the current interval' },
  ),
);

export const MessageError = component('MessageError', Type.Object({ success: Type.Literal(false), message: Type.String() }));

/** `location` of contacts and organizations. */
export const Place = Type.Object({ city: Nullable(Type.String()), region: Nullable(Type.String()), country: Nullable(Type.String()) });

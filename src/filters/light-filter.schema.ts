import Type, { type Static } from 'typebox';

/**
 * The lightFilter expression (docs/behaviour.md, lightFilter): a group
 * `{type: "and" | "or", clauses: [...]}` whose clauses are leaf clauses `{type: <clause kind>, field, params}`
 * or nested groups of the same form. It travels URL-encoded in the `lightFilter` query parameter.
 *
 * These schemas document the expression (OpenAPI) and give its TypeScript types. The compiler does not
 * validate with them: it walks the expression by hand (validate.ts) so that every refusal names the JSON
 * path of the offending clause, and it checks what a schema cannot (fields per entity, values per field).
 */

export const GROUP_TYPES = ['and', 'or'] as const;
export type GroupType = (typeof GROUP_TYPES)[number];

/** Every clause kind with its operators. */
export const CLAUSE_OPS = {
  booleanFilter: ['eq'],
  stringListFilter: ['any', 'all', 'none'],
  dateRangeFilter: ['in'],
  stringFilter: ['eq', 'like', 'startsWith'],
  numberFilter: ['eq', 'gt', 'gte', 'lt', 'lte'],
} as const;

export type ClauseKind = keyof typeof CLAUSE_OPS;
export const CLAUSE_KINDS = Object.keys(CLAUSE_OPS) as ClauseKind[];
export type OpOf<K extends ClauseKind> = (typeof CLAUSE_OPS)[K][number];
export type BooleanOp = OpOf<'booleanFilter'>;
export type StringListOp = OpOf<'stringListFilter'>;
export type DateRangeOp = OpOf<'dateRangeFilter'>;
export type StringOp = OpOf<'stringFilter'>;
export type NumberOp = OpOf<'numberFilter'>;

/** Groups nest at most this deep; the top group is depth 1. */
export const MAX_DEPTH = 8;
/** At most this many leaf clauses in one expression. */
export const MAX_CLAUSES = 100;
/** At most this many values in one stringListFilter. */
export const MAX_LIST_VALUES = 1000;

const Field = Type.String({
  minLength: 1,
  description: 'A filterable field of the list (GET /api/v2/filter-fields?entity=…); `cf_<id>` a custom field, `ls_<id>` a lead score.',
});

const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const leaf = <K extends string, P extends Type.TProperties>(kind: K, params: P, description: string) =>
  Type.Object(
    { type: Type.Literal(kind), field: Field, params: Type.Object(params, { additionalProperties: false }) },
    { additionalProperties: false, description },
  );

export const BooleanFilterClause = leaf('booleanFilter', { op: Type.Literal('eq'), value: Type.Boolean() }, 'The field is true, or false.');

export const StringListFilterClause = leaf(
  'stringListFilter',
  {
    op: Type.Enum(['any', 'all', 'none']),
    value: Type.Array(Type.String(), { maxItems: MAX_LIST_VALUES }),
  },
  'The field (a value or a set of values: tags `l_N`, segments `s_N`, …) holds any, all, or none of the values.',
);

export const DateRangeFilterClause = leaf(
  'dateRangeFilter',
  {
    op: Type.Literal('in'),
    value: Type.Optional(Nullable(Type.String({ description: 'An ISO 8601 duration back from now, e.g. `P7D`, `PT12H`, `P1Y2M`: (now − duration, now].' }))),
    min: Type.Optional(
      Nullable(Type.String({ description: 'Inclusive lower bound: `YYYY-MM-DD` (from the start of that day, UTC) or an ISO 8601 date-time.' })),
    ),
    max: Type.Optional(Nullable(Type.String({ description: 'Inclusive upper bound: `YYYY-MM-DD` (to the end of that day, UTC) or an ISO 8601 date-time.' }))),
  },
  'The field (a time or a date) is in a range: a duration back from now (`value`), or `min`/`max` bounds (both inclusive).',
);

export const StringFilterClause = leaf(
  'stringFilter',
  { op: Type.Enum(['eq', 'like', 'startsWith']), value: Type.String() },
  'eq: exactly; like: case-insensitive substring; startsWith: prefix (case-sensitive).',
);

export const NumberFilterClause = leaf(
  'numberFilter',
  { op: Type.Enum(['eq', 'gt', 'gte', 'lt', 'lte']), value: Type.Number() },
  'The field compared with a number.',
);

export const LeafClause = Type.Union([BooleanFilterClause, StringListFilterClause, DateRangeFilterClause, StringFilterClause, NumberFilterClause]);

export const LightFilterExpression = Type.Cyclic(
  {
    LightFilterGroup: Type.Object(
      {
        type: Type.Enum(['and', 'or'], { description: 'and: every clause matches; or: any clause matches.' }),
        clauses: Type.Array(Type.Union([LeafClause, Type.Ref('LightFilterGroup')]), { minItems: 1, maxItems: MAX_CLAUSES }),
      },
      { additionalProperties: false },
    ),
  },
  'LightFilterGroup',
  {
    description:
      `The \`lightFilter\` query parameter: URL-encoded JSON. Groups nest at most ${MAX_DEPTH} deep (the top group is depth 1) ` +
      `and hold at most ${MAX_CLAUSES} leaf clauses in all. A bad filter is a 400 \`invalid_filter\` naming the JSON path of the ` +
      'offending clause, e.g. `clauses[1].clauses[0].params.op`.',
  },
);

export type LightFilterExpression = Static<typeof LightFilterExpression>;
export type LeafClause = Static<typeof LeafClause>;

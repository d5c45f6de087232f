import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { FilterContext } from './field-kinds.ts';
import { validateExpression, type CheckedNode, type FilterOptions } from './validate.ts';

export interface CompileOptions extends FilterOptions {
  communityId: number;
  /** The service clock's now: durations and activity windows count back from it. */
  now: Date;
}

/**
 * Compiles a lightFilter expression to one boolean SQL fragment about a row of the list's base table,
 * which the list query must name by the alias its fields refer to (the list's `alias`, field-registry.ts):
 *
 *   select c.id from contacts c where c.community_id = $1 and (<fragment>)
 *
 * `raw` is the URL-decoded text of the `lightFilter` parameter (or JSON already parsed). Every value is a
 * parameter; every subquery names the community. A bad expression throws HearthError 400 `invalid_filter`
 * naming the JSON path of the fault (validate.ts); nothing else is thrown for any input.
 */
export function compileExpression(raw: unknown, options: CompileOptions): RawBuilder<SqlBool> {
  const checked = validateExpression(raw, options);
  return compileNode(checked, { communityId: options.communityId, now: options.now, trigramIndexes: options.trigramIndexes });
}

function compileNode(node: CheckedNode, ctx: FilterContext): RawBuilder<SqlBool> {
  if ('field' in node) return sql<SqlBool>`(${node.field.compile(node.leaf, ctx)})`;
  const parts = node.clauses.map((clause) => compileNode(clause, ctx));
  return sql<SqlBool>`(${sql.join(parts, node.type === 'and' ? sql` and ` : sql` or `)})`;
}

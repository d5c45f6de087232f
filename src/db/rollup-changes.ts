import { sql, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

/**
 * Who counts new activities and topic links into the statistics' change tables (docs/stats.md, "How they are computed").
 * By default the row triggers do, one call and one change row per inserted row. A transaction that sets
 * this to 'statement' takes it over: the insert triggers stay silent (their WHEN reads the setting), and the
 * statements that insert activities (upsertActivity, upsertActivities) and topic links (topicLinks) count
 * the rows they inserted, grouped, in the same statement. Both sides read the one setting, so each row is
 * counted once whoever inserts it; rows inserted by hand, or by a transaction that does not set it, are
 * counted by the triggers as before. Deletes and updates are always the triggers'.
 */
const SETTING = 'hearth.rollup_changes';

/**
 * Makes the rest of the transaction count its new activities and topic links in the statements that insert
 * them. A `set local`, sent with the transaction's next statement (prepared-statements.ts).
 *
 * Not on a Citus coordinator: the triggers run on the workers, where a `set local` of the coordinator's is
 * not seen, while the coordinator may evaluate the statement's reading of it itself.
 */
export async function countRollupChangesInStatements(trx: Transaction<DB>): Promise<void> {
  await sql`set local hearth.rollup_changes = 'statement'`.execute(trx);
}

/** True in a statement of a transaction that counts its own rollup changes (countRollupChangesInStatements). */
export const rollupChangesByStatement: RawBuilder<SqlBool> = sql<SqlBool>`current_setting(${sql.lit(SETTING)}, true) = 'statement'`;

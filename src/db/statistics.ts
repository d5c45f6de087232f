import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The tables autovacuum would vacuum or analyze now, by its own rules and the server's autovacuum settings
 * (a base plus a share of the rows): those with enough dead or newly inserted rows, and those with enough
 * changed rows since their last analysis. pglite-autovacuum.ts does both for the embedded database;
 * PlannerStatistics below analyzes for PostgreSQL.
 */
export const DUE_TABLES = `
  with settings as (
    select current_setting('autovacuum_vacuum_threshold')::float8 as vacuum_base,
      current_setting('autovacuum_vacuum_scale_factor')::float8 as vacuum_share,
      current_setting('autovacuum_vacuum_insert_threshold')::float8 as insert_base,
      current_setting('autovacuum_vacuum_insert_scale_factor')::float8 as insert_share,
      current_setting('autovacuum_analyze_threshold')::float8 as analyze_base,
      current_setting('autovacuum_analyze_scale_factor')::float8 as analyze_share
  ), tables as (
    select format('%I.%I', s.schemaname, s.relname) as name, greatest(c.reltuples, 0) as rows,
      s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  )
  select t.name,
    t.n_dead_tup > x.vacuum_base + x.vacuum_share * t.rows
      or (x.insert_base >= 0 and t.n_ins_since_vacuum > x.insert_base + x.insert_share * t.rows) as vacuum,
    t.n_mod_since_analyze > x.analyze_base + x.analyze_share * t.rows as "analyze"
  from tables t cross join settings x
  order by t.name`;

/** Any number, the same in every Hearth process: only one of them analyzes at a time. */
const ANALYZE_LOCK = 0x4865_6172; // "Hear"

/**
 * Statistics for the planner on PostgreSQL, without relying on the operator's autovacuum. A table analyzed
 * while it was nearly empty keeps statistics that say so, and every plan made from them (the foreign-key
 * checks' among them, which pooled sessions keep for their lifetime) reads the grown table as if it were
 * small: one process pushing steadily into a server with autovacuum off went from 213 to 132 pushes/s over
 * 39,000 pushes until something analyzed. Each run analyzes the tables whose changes since their last
 * analysis pass autovacuum's threshold (so with autovacuum on it seldom finds anything); ANALYZE also makes
 * every session replan the statements that read those tables. Of several processes on one database, one
 * runs at a time (an advisory lock), the others skip that round.
 */
export class PlannerStatistics {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string[]> | null = null;

  constructor(private readonly db: Kysely<DB>) {}

  /** Checks every `intervalMs` until stopped; a failed round is tried again at the next. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.run().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One round: the names of the tables it analyzed (none when another process holds the round). */
  run(): Promise<string[]> {
    return (this.running ??= this.analyzeDue().finally(() => {
      this.running = null;
    }));
  }

  private analyzeDue(): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const { rows: lock } = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(${ANALYZE_LOCK}) as held`.execute(trx);
      if (!lock[0]?.held) return [];
      const { rows } = await sql<{ name: string; analyze: boolean }>`${sql.raw(DUE_TABLES)}`.execute(trx);
      const due = rows.filter((table) => table.analyze).map((table) => table.name);
      // The names come from the catalog, quoted by format('%I.%I').
      for (const name of due) await sql`analyze ${sql.raw(name)}`.execute(trx);
      return due;
    });
  }
}

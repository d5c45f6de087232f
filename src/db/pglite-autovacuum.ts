import { CompiledQuery, type DatabaseConnection } from 'kysely';
import { DUE_TABLES } from './statistics.ts';

/**
 * Autovacuum's work, for the embedded database. PostgreSQL keeps the planner's statistics and the
 * visibility maps current with autovacuum workers, but PGlite is one single-user backend with no
 * autovacuum launcher: left alone, its tables are never analyzed, so the planner treats every table as a
 * few rows with no statistics. It then answers `where community_id = $1 and id = $2` by reading the whole
 * community through any index that starts with community_id, and a list page by sorting the community:
 * every request got slower as the data grew (a contact list page at 1,000 contacts cost twice what it
 * cost at 300; an activity push, 66 ms instead of 1.5).
 *
 * The driver calls `due()` whenever it gets its connection back, and `run()` on that connection between
 * two callers when it answers true (at most once per interval). A run reads pg_stat_user_tables and, with
 * autovacuum's own rules and the server's autovacuum settings, vacuums (and analyzes) the tables with
 * enough dead or newly inserted rows, and analyzes those with enough changed rows since their last
 * analysis. A run with nothing to do costs two small queries.
 */
export class EmbeddedAutovacuum {
  private next = 0;

  constructor(
    private readonly intervalMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether a run is due now; if so, the next one is due an interval later. */
  due(): boolean {
    const now = this.now();
    if (now < this.next) return false;
    this.next = now + this.intervalMs;
    return true;
  }

  /** Vacuums and analyzes what autovacuum would. Must run outside any transaction. */
  async run(connection: DatabaseConnection): Promise<void> {
    // The counters reach pg_stat_user_tables when the backend flushes them, which it otherwise does at most
    // once a second; this flushes them at the end of this statement, before the next one reads them.
    await connection.executeQuery(CompiledQuery.raw('select pg_stat_force_next_flush()'));
    const { rows } = await connection.executeQuery<{ name: string; vacuum: boolean; analyze: boolean }>(CompiledQuery.raw(DUE_TABLES));
    for (const table of rows.filter((each) => each.vacuum || each.analyze)) {
      await connection.executeQuery(CompiledQuery.raw(`${table.vacuum ? 'vacuum (analyze)' : 'analyze'} ${table.name}`));
    }
  }
}

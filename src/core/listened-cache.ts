import { sql } from 'kysely';
import type { Executor } from './executor.ts';

/**
 * Rows a process has read, kept while it hears every change to their table (the writer announces each
 * change, heard at commit: announceChange): token rows (`api_tokens`) and website tracker keys
 * (`website_trackers`).
 * A revoked token or key is therefore refused as soon as the notification arrives, milliseconds after the
 * revocation commits, and the database is read only for rows the process has not seen. While the process
 * is not listening (starting, or its listening connection dropped), nothing is cached and every request
 * reads the row.
 *
 * A read that began before a change must not store what it read after the change was heard: each read
 * takes the current generation, and its result is kept only if no change came in between.
 */
export function createListenedCache<Row>(options: { ttlMs: number; maxEntries: number; now: () => number }) {
  const entries = new Map<string, { row: Row; at: number }>();
  let listening = false;
  let generation = 0;

  const reset = () => {
    generation += 1;
    entries.clear();
  };

  return {
    /** Listening: changes will be heard from now on. */
    listening() {
      reset();
      listening = true;
    },
    /** A change was heard, or may have been missed. */
    changed: reset,
    deaf() {
      listening = false;
      reset();
    },
    get(key: string): Row | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (options.now() - entry.at > options.ttlMs) {
        entries.delete(key);
        return undefined;
      }
      return entry.row;
    },
    generation: () => generation,
    /** Keeps a row read at `readGeneration`, unless a change was heard since. */
    put(key: string, row: Row, readGeneration: number) {
      if (!listening || readGeneration !== generation) return;
      if (entries.size >= options.maxEntries) entries.clear();
      entries.set(key, { row, at: options.now() });
    },
  };
}

/**
 * Tells every listening process, when the caller's transaction commits, that the row with `key` changed.
 * Sent by the writer on its own connection rather than by a trigger: on a Citus cluster a table's triggers
 * run on the worker holding the row, whose notifications no Hearth process hears (docs/scaling.md). A
 * change made by hand in SQL must send it too: `select pg_notify('<channel>', '<key>')`.
 */
export async function announceChange(db: Executor, channel: string, key: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${key})`.execute(db);
}

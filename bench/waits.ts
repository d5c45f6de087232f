import pg from 'pg';

/**
 * What a database's sessions do while a figure is measured: pg_stat_activity sampled every `everyMs`, each
 * active session counted by what it waits for (a lock, another transaction, I/O, or nothing: on the CPU)
 * and, when it waits on a lock, by its statement. A figure far below its baseline with most sessions
 * waiting on locks points at Hearth's transactions queueing on each other, not at work.
 */
export interface WaitTally {
  samples: number;
  /** Active sessions seen, summed over the samples. */
  active: number;
  /** `type:event`, or `cpu` -> sessions, summed over the samples. */
  waits: Map<string, number>;
  /** The statements of sessions waiting on a lock, by their first words. */
  waitingStatements: Map<string, number>;
}

export const emptyTally = (): WaitTally => ({ samples: 0, active: 0, waits: new Map(), waitingStatements: new Map() });

/** Samples the database of `databaseUrl` into `tally` until stopped. */
export function sampleWaits(databaseUrl: string, tally: WaitTally, everyMs = 50): { stop(): Promise<void> } {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-wait-sampler' });
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  let stopped = false;
  const running = (async () => {
    await client.connect();
    try {
      while (!stopped) {
        const { rows } = await client.query<{ type: string | null; event: string | null; query: string }>(
          `select wait_event_type as type, wait_event as event, query from pg_stat_activity
           where datname = current_database() and state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        );
        tally.samples += 1;
        for (const row of rows) {
          tally.active += 1;
          add(tally.waits, row.type ? `${row.type}:${row.event}` : 'cpu');
          if (row.type === 'Lock') add(tally.waitingStatements, row.query.replace(/\s+/g, ' ').trim().slice(0, 100));
        }
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Lines for the log: the waits as shares of the active sessions seen, and the statements most waited on. */
export function describeWaits(tally: WaitTally): string[] {
  if (tally.active === 0) return ['    no active session was seen'];
  const share = (n: number) => `${((100 * n) / tally.active).toFixed(0)} %`;
  const most = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `    ${(tally.active / Math.max(1, tally.samples)).toFixed(1)} sessions active on average (${tally.samples} samples): ` +
      most(tally.waits, 6)
        .map(([wait, n]) => `${wait} ${share(n)}`)
        .join(', '),
    ...most(tally.waitingStatements, 3).map(([statement, n]) => `    waiting on a lock, ${share(n)}: ${statement}`),
  ];
}

/** As stored in the results file. */
export const tallyJson = (tally: WaitTally) => ({
  samples: tally.samples,
  active: tally.active,
  waits: Object.fromEntries(tally.waits),
  waitingStatements: Object.fromEntries(tally.waitingStatements),
});

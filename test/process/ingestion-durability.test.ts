import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { Processes, call, type HearthServer } from '../helpers/process.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';

/** The token and source ID that a first `serve` prints. */
function banner(server: HearthServer): { token: string; sourceId: number } {
  const out = server.process.stdout;
  return { token: /^ {2}Token: +(\S+)$/m.exec(out)![1]!, sourceId: Number(/^ {2}Source ID: +(\d+)$/m.exec(out)![1]) };
}

/** Runs `tasks` with at most `width` at once. */
async function pool<T>(items: T[], width: number, task: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await task(items[index]!, index);
      }
    }),
  );
}

describe('a push answered 202 survives kill -9 of the embedded server', () => {
  const processes = new Processes();
  afterAll(() => processes.cleanup());

  it('finds every acknowledged push after the crash', async () => {
    const dataDir = processes.migratedDataDir();
    const server = await processes.serve({ HEARTH_DATA_DIR: dataDir, HEARTH_RATE_LIMIT: '1000000' });
    const { token, sourceId } = banner(server);
    const acknowledged: string[] = [];
    let killed = false;
    const ids = Array.from({ length: 5000 }, (_, i) => `durable-${i}`);
    await pool(ids, 8, async (id) => {
      if (killed) return;
      try {
        const response = await call(`${server.url}/community/v1/source/${sourceId}/user`, {
          method: 'POST',
          token,
          body: { id, email: `${id}@example.org`, fullName: `Durable ${id}` },
        });
        if (response.status === 202) acknowledged.push(id);
      } catch {
        // In flight at the kill: not acknowledged, so nothing is promised about it.
      }
      if (acknowledged.length >= 200 && !killed) {
        killed = true;
        server.process.kill('SIGKILL');
      }
    });
    await server.process.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);

    // Open the data directory as the next process would (taking over the dead server's lock).
    const database = await openDatabase({ engine: 'pglite', dataDir, command: 'test' });
    try {
      const rows = await database.db.selectFrom('source_profiles').select('external_id').execute();
      const stored = new Set(rows.map((row) => row.external_id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      const contacts = await database.db.selectFrom('contact_identities').select('value').where('type', '=', 'email').execute();
      const emails = new Set(contacts.map((row) => row.value));
      expect(acknowledged.filter((id) => !emails.has(`${id}@example.org`))).toEqual([]);
    } finally {
      await database.close();
    }
  }, 180_000); // a time limit against hangs only, never a time assertion
});

/**
 * PostgreSQL only: the embedded database serves one process, so there is no second process to race with.
 * Skipped unless TEST_DATABASE_URL names a server.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('concurrent pushes from two servers on one PostgreSQL', () => {
  const processes = new Processes();
  let dropDatabase: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await processes.cleanup();
    await dropDatabase?.();
  });

  it('10,000 pushes about 2,000 people with overlapping identities make exactly 2,000 contacts', async () => {
    const database = await createPostgresDatabase();
    dropDatabase = database.drop;
    const env = { DATABASE_URL: database.url, HEARTH_RATE_LIMIT: '10000000' };
    const first = await processes.serve(env);
    const second = await processes.serve(env);
    const { token, sourceId } = banner(first);

    // Each person has four identities; no single push names them all, but the pushes together connect
    // them: email-github (push 4), github-twitter (push 5), twitter-linkedin (push 3). Ground truth: one
    // contact per person, which needs merges whenever the pushes arrive in another order.
    const PEOPLE = 2000;
    const pushes: Record<string, unknown>[] = [];
    for (let p = 0; p < PEOPLE; p++) {
      const email = `Person.${p}@example.org`;
      const github = { type: 'handle', value: `gh-person-${p}` };
      const twitter = { type: 'handle', value: `tw_person_${p}` };
      const linkedin = { type: 'handle', value: `https://www.linkedin.com/in/li-person-${p}/` };
      pushes.push(
        { email },
        { github },
        { twitter, linkedin },
        { email: email.toLowerCase(), github },
        { github: { type: 'handle', value: `@gh-person-${p}` }, twitter },
      );
    }
    // A fixed shuffle (seeded), so a failure can be replayed.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = pushes.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [pushes[i], pushes[j]] = [pushes[j]!, pushes[i]!];
    }

    const statuses = new Map<number, number>();
    const servers = [first, second];
    await pool(pushes, 48, async (user, index) => {
      const server = servers[index % 2]!;
      const response = await call(`${server.url}/community/v1/source/${sourceId}/user`, {
        method: 'POST',
        token,
        body: { id: `push-${index}`, ...user },
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status !== 202) throw new Error(`push ${index} answered ${response.status}: ${JSON.stringify(response.body)}`);
    });
    expect(Object.fromEntries(statuses)).toEqual({ 202: 10_000 });

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const count = async (query: string) => Number((await client.query<{ n: string }>(query)).rows[0]!.n);
      // Pushed people only: the admin user has a contact of their own (with their login email). Every join
      // names the community, as Hearth's own statements do, so that a Citus cluster runs it on one node.
      const pushed = (row: string) => `not exists (select 1 from app_users u where u.community_id = ${row}.community_id and u.contact_id = ${row}.contact_id)`;
      expect(await count(`select count(*) as n from (select community_id, id as contact_id from contacts) c where ${pushed('c')}`)).toBe(PEOPLE);
      expect(await count(`select count(*) as n from contact_identities i where ${pushed('i')}`)).toBe(PEOPLE * 4);
      expect(
        await count(
          'select count(*) as n from (select community_id, contact_id from contact_identities group by community_id, contact_id having count(*) = 4) x',
        ),
      ).toBe(PEOPLE);
      expect(await count('select count(*) as n from source_profiles')).toBe(10_000);
      // Every merged-away contact still resolves to a live one.
      expect(
        await count(
          'select count(*) as n from contact_merges m left join contacts c on c.community_id = m.community_id and c.id = m.survivor_id where c.id is null',
        ),
      ).toBe(0);
    } finally {
      await client.end();
    }

    // The backlog counts both processes: each reports its own every 5 s, for the other and for `hearth`,
    // and again when a queue it reported waiting empties (so neither shows answered pushes waiting).
    type Backlog = { queuedPushes: number; storedLastMinute: number; processes: number };
    let backlog: Backlog | undefined;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const response = await call(`${first.url}/api/v2/admin/ingestion`, { token });
      expect(response.status).toBe(200);
      backlog = (response.body as { data: Backlog }).data;
      if (backlog.processes === 2 && backlog.queuedPushes === 0) break;
    }
    expect(backlog).toMatchObject({ queuedPushes: 0, processes: 2 });
    expect(backlog!.storedLastMinute).toBeGreaterThan(0);
    const listed = await processes.run(['ingestion', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ queuedPushes: 0, processes: 2 })]);
  }, 600_000); // 10,000 HTTP pushes: about a minute alone, more under a full parallel suite
});

import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv, Processes } from '../helpers/process.ts';

/**
 * `hearth webhook …` on the embedded database: each subcommand reaches the webhooks service, and misuse is a
 * clear error. `hearth init` opens the new data directory itself; the subcommands then run inside a `hearth
 * serve` that holds it, as they do whenever a server runs, which spares each of them starting the database
 * engine; the last `webhook list`, after the server stops, opens the directory itself again.
 */
describe('hearth webhook', () => {
  const processes = new Processes();
  afterAll(() => processes.cleanup());

  it('adds, lists, updates, pauses, resumes, rotates, lists deliveries, replays and prunes', { timeout: 240_000 }, async () => {
    const { env } = await freshDatabaseEnv('pglite', processes);
    const run = async (...args: string[]) => {
      const result = await processes.run(['webhook', ...args], env, 120_000);
      return { ...result, json: () => JSON.parse(result.stdout) as Record<string, unknown> };
    };
    expect((await processes.run(['init', '--json'], env, 120_000)).code).toBe(0);
    const server = await processes.serve(env);

    const added = await run('add', '--url', 'https://hooks.example.org/crm', '--events', 'contact.created,activity.created', '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(added.json()).toMatchObject({
      id: 'wh_1',
      events: ['contact.created', 'activity.created'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    const filtered = await run(
      'add',
      '--url',
      'https://hooks.example.org/talks',
      '--events',
      'activity.created',
      '--filter',
      '{"type":"and","clauses":[{"type":"stringListFilter","field":"type","params":{"op":"any","value":["commented_replied"]}}]}',
      '--json',
    );
    expect(filtered.json()).toMatchObject({ id: 'wh_2', filterEntity: 'activity' });

    const listed = await run('list');
    expect(listed.stdout).toMatch(/wh_1\s+enabled\s+https:\/\/hooks\.example\.org\/crm/);
    expect(listed.stdout).toMatch(/wh_2 .*activity filter/);

    expect((await run('update', 'wh_2', '--filter', 'none', '--json')).json()).toMatchObject({ lightFilter: null, filterEntity: null });
    expect((await run('disable', 'wh_1')).stdout).toMatch(/Disabled wh_1/);
    expect((await run('enable', 'wh_1', '--json')).json()).toMatchObject({ enabled: true });
    const rotated = await run('rotate-secret', 'wh_1', '--keep-previous', '2', '--json');
    expect(rotated.json()).toMatchObject({ secret: expect.stringMatching(/^whsec_/), previousSecretUntil: expect.any(String) });
    expect(rotated.json().secret).not.toBe(added.json().secret);
    expect((await run('deliveries', 'wh_1')).stdout.trim()).toBe('(none)');
    expect((await run('replay', 'wh_1', '--since', '2026-01-01T00:00:00Z', '--json')).json()).toMatchObject({ webhookId: 'wh_1', deliveries: 0 });

    const pruned = await run('prune', '--before', '7d', '--json');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.json()).toEqual({ before: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), deleted: 0 });
    expect((await run('prune')).stderr).toMatch(/--before is required/);

    const refused = await run('add', '--url', 'https://hooks.example.org/x', '--events', 'contact.deleted');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/"contact.deleted" is not an event kind/);
    const badId = await run('disable', 'hook-1');
    expect(badId.code).not.toBe(0);
    expect(badId.stderr).toMatch(/"hook-1" is not a webhook ID \(wh_N\)/);
    const missing = await run('replay', 'wh_1');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--since/);
    expect((await run('replay', 'wh_1', '--since', 'last week')).stderr).toMatch(
      /--since must be an ISO 8601 date, date-time with offset .* or duration back from now/,
    );

    const served = await run('list');
    server.process.kill('SIGTERM');
    expect(await server.process.waitForExit()).toEqual({ code: 0, signal: null });
    const offline = await run('list');
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toBe(served.stdout);
  });
});

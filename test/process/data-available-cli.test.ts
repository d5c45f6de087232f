import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Processes, call } from '../helpers/process.ts';

/**
 * A file source end to end: `hearth source create --kind file --path DIR`, POST /api/v2/data-available to a
 * real server, whose worker imports the folder in the background; then `hearth jobs` and `hearth jobs show`
 * tell the job's status, attempts, times and result (the bad line with its number and reason).
 */
describe('file sources through a real server, and `hearth jobs`', () => {
  const processes = new Processes();
  afterAll(() => processes.cleanup());

  it('the server imports the folder in the background; jobs lists the job; jobs show tells all of it', { timeout: 180_000 }, async () => {
    const env = { HEARTH_DATA_DIR: processes.migratedDataDir() };
    const init = await processes.run(['init', '--json'], env);
    expect(init.code, init.stderr).toBe(0);
    const { token } = JSON.parse(init.stdout) as { token: string };

    const folder = processes.tempDir();
    fs.writeFileSync(
      path.join(folder, 'people.jsonl'),
      [
        JSON.stringify({ type: 'user', id: 'f-1', fullName: 'Ada Lovelace', email: 'ada@analytical.example.org' }),
        JSON.stringify({ type: 'user', id: 'f-2', username: 'grace-h', github: 'grace-h' }),
        '{"type": "user", "id": ',
      ].join('\n'),
    );
    const created = await processes.run(['source', 'create', '--name', 'Exports', '--kind', 'file', '--path', folder, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { sourceId } = JSON.parse(created.stdout) as { sourceId: number };

    const server = await processes.serve(env, { logLevel: 'info' });
    const response = await call(`${server.url}/api/v2/data-available`, { method: 'POST', token, body: { sourceId } });
    expect(response).toMatchObject({ status: 200, body: { success: true, jobId: expect.any(Number), created: true } });
    const { jobId } = response.body as { jobId: number };
    await server.process.waitForLine(/"msg":"job completed"/);
    const contacts = await call(`${server.url}/api/v2/contacts?limit=10`, { token });
    expect(contacts.status).toBe(200);
    // The two imported; the admin user's own contact is a console user's, not a member's, and not listed.
    expect((contacts.body as { data: { name: string }[] }).data.map((contact) => contact.name).sort()).toEqual(['Ada Lovelace', 'grace-h']);
    server.process.kill('SIGTERM');
    expect(await server.process.waitForExit()).toEqual({ code: 0, signal: null });

    const listed = await processes.run(['jobs', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(1);
    const jobs = JSON.parse(listed.stdout) as Record<string, unknown>[];
    const expected = {
      id: jobId,
      communityId: 'com_1',
      kind: 'source.import',
      status: 'completed',
      attempts: 1,
      maxAttempts: 5,
      payload: { sourceId },
      progress: expect.objectContaining({ phase: 'augmenting' }),
      result: expect.objectContaining({
        sourceId,
        kind: 'file',
        files: [
          expect.objectContaining({
            name: 'people.jsonl',
            lines: 3,
            counts: { users: 2, activities: 0, organizations: 0, warnings: 0, badLines: 1 },
            badLines: [{ line: 3, reason: 'not JSON (the line ends inside a value)' }],
          }),
        ],
        skippedFiles: 0,
        augmented: expect.objectContaining({ contacts: 2 }),
      }),
      error: null,
      createdAt: expect.any(String),
      runAt: expect.any(String),
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      lockedBy: null,
    };
    expect(jobs).toEqual([expected]);

    const human = await processes.run(['jobs', '--status', 'completed'], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        `^JOB +COMMUNITY +KIND +STATUS +ATTEMPTS +CREATED +FINISHED +OUTCOME\\n${jobId}\\s+com_1\\s+source\\.import\\s+completed\\s+1/5\\s+\\S+\\s+\\S+\\s+\\{.*"name":"people\\.jsonl"`,
      ),
    );
    const none = await processes.run(['jobs', '--status', 'queued', '--json'], env);
    expect(JSON.parse(none.stdout)).toEqual([]);

    const shown = await processes.run(['jobs', 'show', String(jobId), '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(expected);
    const shownHuman = await processes.run(['jobs', 'show', String(jobId)], env);
    expect(shownHuman.stdout).toMatch(/^id:\s+\d+$/m);
    expect(shownHuman.stdout).toMatch(/^status:\s+completed$/m);
    expect(shownHuman.stdout).toMatch(/"name": "people.jsonl"/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { Processes, type Env, type RunResult } from '../helpers/process.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';

/**
 * The `hearth` administration commands, run as separate processes, on one engine: the embedded database (a
 * fresh data directory) or PostgreSQL (a fresh database through DATABASE_URL). The tests share one database
 * and one community, made in beforeAll; each test makes and checks its own things in it.
 * cli-embedded.test.ts and cli-postgres.test.ts run it, as two files so that they run in parallel.
 */

function json<T>(result: RunResult): T {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trimEnd().split('\n'), 'one line of JSON').toHaveLength(1);
  return JSON.parse(result.stdout) as T;
}

/** A known failure: exit code 1, one `hearth: …` message on stderr, nothing on stdout. */
function expectRefusal(result: RunResult, message: string) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(`hearth: ${message}\n`);
}

/** A command used wrongly: the refusal, then where to read the usage. */
function expectUsageError(result: RunResult, message: string) {
  expectRefusal({ ...result, stderr: result.stderr.replace(/Run `hearth --help` for usage\.\n$/, '') }, message);
  expect(result.stderr).toMatch(/\nRun `hearth --help` for usage\.\n$/);
}

export function describeCli(engine: Engine) {
  // PostgreSQL is there only when TEST_DATABASE_URL names a server (each run makes and drops its own database).
  describe.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)(`hearth CLI (${engine})`, () => {
    const processes = new Processes();
    let env: Env;
    let dropDatabase: (() => Promise<void>) | undefined;
    let created: RunResult;
    let communityId: string;
    const hearth = (...args: string[]) => processes.run(args, env);

    beforeAll(async () => {
      if (engine === 'postgres') {
        const database = await createPostgresDatabase();
        dropDatabase = database.drop;
        env = { DATABASE_URL: database.url };
      } else {
        env = { HEARTH_DATA_DIR: processes.tempDir() };
      }
      created = await hearth('community', 'create', '--name', 'X', '--json');
      // Checked by the first test; the others need only the ID.
      communityId = /"communityId":"(com_\d+)"/.exec(created.stdout)?.[1] ?? 'com_0';
    });
    afterAll(async () => {
      await processes.cleanup();
      await dropDatabase?.();
    });

    it('community create --json prints {"communityId":"com_N"}', () => {
      expect(json(created)).toEqual({ communityId: expect.stringMatching(/^com_\d+$/) });
    });

    it('token create, list and revoke', async () => {
      const issued = json<{ token: string; jti: string }>(
        await hearth('token', 'create', '--community', communityId, '--scopes', 'contacts:read', '--name', 't', '--json'),
      );
      expect(issued).toEqual({ token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), jti: expect.any(String) });

      type Listed = { jti: string; name: string; scopes: string[]; communityId: string; revokedAt: string | null };
      const before = json<Listed[]>(await hearth('token', 'list', '--json'));
      expect(before).toContainEqual(expect.objectContaining({ jti: issued.jti, name: 't', scopes: ['contacts:read'], communityId, revokedAt: null }));

      const revoked = await hearth('token', 'revoke', issued.jti);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toBe(`Revoked ${issued.jti}.\n`);

      const after = json<Listed[]>(await hearth('token', 'list', '--json'));
      expect(after.find((token) => token.jti === issued.jti)?.revokedAt).toEqual(expect.any(String));
    });

    it('token create with an unknown scope is a clear error', async () => {
      expectRefusal(await hearth('token', 'create', '--community', communityId, '--scopes', 'contacts:read,nope', '--json'), 'unknown scope: nope');
    });

    it('source create and list; a duplicate name is a clear error', async () => {
      const source = json<{ sourceId: number }>(await hearth('source', 'create', '--name', 'S', '--json'));
      expect(source).toEqual({ sourceId: expect.any(Number) });
      expect(Number.isInteger(source.sourceId)).toBe(true);

      const listed = json<{ sourceId: number; name: string; kind: string }[]>(await hearth('source', 'list', '--json'));
      expect(listed).toContainEqual(expect.objectContaining({ sourceId: source.sourceId, name: 'S', kind: 'api' }));

      expectRefusal(await hearth('source', 'create', '--name', 'S', '--json'), 'a source named "S" already exists');
    });

    it('source create --kind file --path DIR: a file source of the folder (its absolute path); bad kinds and paths are clear errors', { timeout: 180_000 }, async () => {
      const dir = processes.tempDir();
      const made = json<{ sourceId: number }>(await hearth('source', 'create', '--name', 'Exports', '--kind', 'file', '--path', dir, '--json'));
      const listed = json<{ sourceId: number; name: string; kind: string; path: string | null }[]>(await hearth('source', 'list', '--json'));
      expect(listed).toContainEqual({ sourceId: made.sourceId, name: 'Exports', kind: 'file', path: dir, visible: true });

      const human = await hearth('source', 'list');
      expect(human.stdout).toMatch(new RegExp(`^${made.sourceId}\\s+Exports\\s+file\\s+\\S+$`, 'm'));

      expectRefusal(await hearth('source', 'create', '--name', 'NoPath', '--kind', 'file', '--json'), 'a file source needs a path (the folder to import from)');
      expectRefusal(await hearth('source', 'create', '--name', 'Gone', '--kind', 'file', '--path', `${dir}/missing`, '--json'), `path "${dir}/missing" is not a folder`);
      expectUsageError(await hearth('source', 'create', '--name', 'Odd', '--kind', 'ftp', '--json'), '--kind must be api or file');
      expectRefusal(await hearth('source', 'create', '--name', 'ApiPath', '--path', dir, '--json'), 'only a file source takes a path');
    });

    it('jobs: none yet is [] (or "(none)"); a bad --status, --limit or ID is a clear error', { timeout: 180_000 }, async () => {
      expect(json<unknown[]>(await hearth('jobs', '--json'))).toEqual([]);
      expect(json<unknown[]>(await hearth('jobs', '--status', 'failed', '--community', communityId, '--json'))).toEqual([]);
      const human = await hearth('jobs');
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toBe('(none)\n');
      expectUsageError(await hearth('jobs', '--status', 'done'), '--status must be one of queued, running, completed, failed');
      expectUsageError(await hearth('jobs', '--limit', '0'), '--limit must be a positive integer');
      expectUsageError(await hearth('jobs', 'show', '999'), 'no job 999');
      expectUsageError(await hearth('jobs', 'show'), 'the job ID is required');
    });

    it('activity-type add, then list includes it', async () => {
      const added = await hearth('activity-type', 'add', '--id', 'my_type', '--name', 'My type');
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toBe('Added activity type my_type ("My type").\n');

      const listed = json<{ id: string; displayName: string; category: string }[]>(await hearth('activity-type', 'list', '--json'));
      expect(listed).toContainEqual({ id: 'my_type', displayName: 'My type', category: 'other' });
    });
  });
}

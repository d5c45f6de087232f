import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { OPTIONS, type Terminal } from '../../src/cli/command.ts';
import { describeFailure } from '../../src/cli/failure.ts';
import { runCommand } from '../../src/cli/run.ts';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config/config.ts';
import { databaseTarget, openDatabase } from '../../src/db/database.ts';
import { createServices } from '../../src/services.ts';
import { call, childEnv, freshDatabaseEnv, jwtPayload, Processes, REPO_ROOT, type Env, type HearthServer, type RunResult } from '../helpers/process.ts';

/**
 * The `hearth` administration commands, from their command lines, on one engine: the embedded database (a
 * fresh data directory) or PostgreSQL (a fresh database through DATABASE_URL). The tests share one database
 * and one community, made in beforeAll; each test makes and checks its own things in it.
 * cli-embedded.test.ts and cli-postgres.test.ts run it, as two files so that they run in parallel.
 *
 * On the embedded database, a command that opens the data directory itself starts the whole database
 * engine (some 3 s of CPU each, over a hundred commands here). So there the first command (`community
 * create`) opens the database itself, then a `hearth serve` holds the directory and the other commands
 * run inside it, through its socket, as they do whenever a server runs; cli-server.test.ts
 * checks that they answer the same there. The last test stops the server and opens the directory again
 * from a command. On PostgreSQL any number of processes may open the database, but each `hearth` process
 * costs some 2 s (loading the app, opening the database, mostly CPU): there `--help` and
 * `community create` run as processes, and the other commands in this test process, through runCommand
 * on one set of services, as the embedded server's socket runs them for a `hearth` process. The process
 * path on PostgreSQL stays tested here by those two and by the objects test's `hearth serve`, and by the
 * other files in test/process.
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

interface CommandsInProcess {
  /** Whether the database is a Citus coordinator's (TEST_DATABASE_URL naming one: docs/scaling.md). */
  citus: boolean;
  run(args: string[]): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * `hearth` commands in this process, on the database `env` names: the command line parsed as `hearth`
 * parses it, the services made as a `hearth` process makes them (runLocally), the command run as the
 * embedded server's socket runs it (runCommand, a failure told by describeFailure), stdout and stderr
 * captured. Not for `--help`, `serve` or `restore`, which never reach runCommand.
 */
async function commandsInProcess(env: Env): Promise<CommandsInProcess> {
  const config = loadConfig(childEnv(env));
  const database = await openDatabase(databaseTarget(config, 'hearth (tests)'));
  const services = await createServices({ db: database.db, clock: systemClock, config });
  return {
    citus: database.citus,
    async run(args) {
      let stdout = '';
      let stderr = '';
      const terminal: Terminal = {
        out: async (text) => void (stdout += text),
        err: (text) => void (stderr += text),
        errIsTTY: false,
        // Where a `hearth` child process runs.
        cwd: REPO_ROOT,
        onInterrupt: () => () => undefined,
      };
      let code: number;
      try {
        const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
        const [name, sub, ...rest] = positionals;
        if (values.help || name === undefined || name === 'serve' || name === 'restore')
          throw new Error(`not a command to run in this process: ${args.join(' ')}`);
        code = await runCommand({ name, sub, args: rest, values }, { services, database, terminal });
      } catch (error) {
        const failure = describeFailure(error);
        stderr += failure.text;
        code = failure.code;
      }
      return { code, signal: null, stdout, stderr };
    },
    close: () => database.close(),
  };
}

export function describeCli(engine: Engine) {
  // PostgreSQL is there only when TEST_DATABASE_URL names a server (each run makes and drops its own database).
  describe.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)(`hearth CLI (${engine})`, () => {
    const processes = new Processes();
    let env: Env;
    let dropDatabase: (() => Promise<void>) | undefined;
    let created: RunResult;
    let communityId: string;
    /** The embedded server that runs the commands (on the embedded database). */
    let server: HearthServer | undefined;
    /** The commands after `community create`, in this process (on PostgreSQL). */
    let inProcess: CommandsInProcess | undefined;
    const run = (args: string[], timeoutMs?: number) => (inProcess ? inProcess.run(args) : processes.run(args, env, timeoutMs));
    const hearth = (...args: string[]) => run(args);
    /** Always a process: `--help` and a usage error never reach runCommand. */
    const child = (...args: string[]) => processes.run(args, env);

    beforeAll(async () => {
      ({ env, drop: dropDatabase } = await freshDatabaseEnv(engine, processes));
      created = await hearth('community', 'create', '--name', 'X', '--json');
      // Checked by the first test; the others need only the ID.
      communityId = /"communityId":"(com_\d+)"/.exec(created.stdout)?.[1] ?? 'com_0';
      if (engine === 'postgres') inProcess = await commandsInProcess(env);
    });
    afterAll(async () => {
      await processes.cleanup();
      await inProcess?.close();
      await dropDatabase?.();
    });

    it(
      "--help lists every command; a command's --help only its own, a subcommand's its options; an unknown command is refused",
      { timeout: 180_000 },
      async () => {
        const all = await child('--help');
        expect(all.code).toBe(0);
        for (const line of [
          '  hearth serve\n',
          '  hearth token create ',
          '  hearth jobs show ID ',
          '  hearth ingestion ',
          '  hearth objects import ',
          '  hearth feed add ',
          '  hearth custom-field add ',
          '  hearth lead-score dry-run ',
          '  hearth prospector import FILE ',
          '  hearth buying-committee set FILE.json ',
          '  hearth audit prune ',
          '  hearth export contacts|organizations|activities ',
          '  hearth backup FILE ',
          '  hearth restore FILE ',
        ]) {
          expect(all.stdout).toContain(line);
        }
        const token = await child('token', '--help');
        expect(token.code).toBe(0);
        expect(token.stdout).toContain('  hearth token revoke JTI');
        expect(token.stdout).not.toContain('  hearth source create');
        const create = await child('token', 'create', '--help');
        expect(create.code).toBe(0);
        expect(create.stdout).toMatch(/^Usage: hearth token create \[--community com_N\] .*\n\nIssues an API token/);
        expect(create.stdout).toMatch(/^ {2}--expires-in DURATION +its lifetime/m);
        expect(create.stdout).not.toContain('token revoke');
        expectUsageError(await child('tokens', 'list'), 'unknown command "tokens"');
        expectUsageError(await child('token', 'delete'), 'unknown command "token delete"');
      },
    );

    it('community create --json prints {"communityId":"com_N"}', () => {
      expect(json(created)).toEqual({ communityId: expect.stringMatching(/^com_\d+$/) });
    });

    describe('the other commands', () => {
      // On the embedded database, a server holds the directory from here on and runs the commands (see the top of the file).
      beforeAll(async () => {
        if (engine === 'pglite') server = await processes.serve(env);
      });

      it(
        "audit lists the CLI's writes as cli:<user>@<host>, newest first, with filters; a bad --since is a clear error; prune records itself",
        { timeout: 180_000 },
        async () => {
          const issued = json<{ jti: string }>(await hearth('token', 'create', '--community', communityId, '--name', 'audited', '--json'));
          expect((await hearth('token', 'revoke', issued.jti)).code).toBe(0);
          type Entry = {
            id: string;
            communityId: string;
            actor: string;
            tokenId: string | null;
            operation: string;
            entityIds: string[];
            detail: Record<string, unknown>;
          };
          const actor = `cli:${os.userInfo().username}@${os.hostname()}`;

          const forToken = json<Entry[]>(await hearth('audit', '--community', communityId, '--entity', issued.jti, '--json'));
          expect(forToken).toEqual([
            expect.objectContaining({ communityId, actor, tokenId: null, operation: 'token.revoke', entityIds: [issued.jti] }),
            expect.objectContaining({
              communityId,
              actor,
              tokenId: null,
              operation: 'token.create',
              entityIds: [issued.jti],
              detail: expect.objectContaining({ name: 'audited' }),
            }),
          ]);
          const made = json<Entry[]>(await hearth('audit', '--community', communityId, '--operation', 'community.*', '--since', 'P1D', '--json'));
          // Newest first: on the embedded database, the server's first start bootstrapped the community (its "API" source).
          expect(made).toEqual([
            ...(engine === 'pglite' ? [expect.objectContaining({ operation: 'community.bootstrap', actor })] : []),
            expect.objectContaining({ operation: 'community.create', entityIds: [communityId], detail: { name: 'X' } }),
          ]);
          // The short form is the same duration; a future bound leaves nothing.
          expect(json<Entry[]>(await hearth('audit', '--community', communityId, '--operation', 'community.*', '--since', '1d', '--json'))).toEqual(made);
          expect(json<Entry[]>(await hearth('audit', '--community', communityId, '--operation', 'community.*', '--until', '2h', '--json'))).toEqual([]);

          const table = await hearth('audit', '--community', communityId, '--entity', issued.jti, '--limit', '1');
          expect(table.code, table.stderr).toBe(0);
          expect(table.stdout.trimEnd().split('\n')).toHaveLength(2);
          expect(table.stdout.split('\n')[0]).toMatch(/^ENTRY +AT +COMMUNITY +ACTOR +OPERATION +IDS +TOKEN$/);
          expect(table.stdout.split('\n')[1]).toMatch(
            new RegExp(`^au_\\d+ +\\S+ +${communityId} +${actor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +token\\.revoke +${issued.jti}`),
          );

          expectRefusal(
            await hearth('audit', '--since', 'last week'),
            'since must be an ISO 8601 date, date-time with offset (2026-11-01T09:00:00Z) or duration back from now (P7D, PT1H); got "last week"',
          );

          // Pruning everything before now leaves the community one entry: the prune's own.
          const pruned = json<{ before: string; deleted: number }>(await hearth('audit', 'prune', '--before', 'PT0S', '--community', communityId, '--json'));
          expect(pruned.deleted).toBeGreaterThanOrEqual(3);
          expect(json<Entry[]>(await hearth('audit', '--community', communityId, '--json'))).toEqual([
            expect.objectContaining({ actor, operation: 'audit.prune', entityIds: [], detail: { before: pruned.before, deleted: pruned.deleted } }),
          ]);
        },
      );

      it('token create, list and revoke', { timeout: 180_000 }, async () => {
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

      it(
        'token create --expires-in takes a duration (7d, PT1H, or seconds); past ten years or no duration is a clear error',
        { timeout: 180_000 },
        async () => {
          for (const lifetime of ['315360001', '3651d']) {
            expectUsageError(
              await hearth('token', 'create', '--community', communityId, '--expires-in', lifetime, '--json'),
              `--expires-in must be from 1m (60 seconds) to ten years (315360000 seconds), in whole seconds; got "${lifetime}"`,
            );
          }
          expectUsageError(
            await hearth('token', 'create', '--community', communityId, '--expires-in', '1e30', '--json'),
            '--expires-in must be a duration such as 30s, 15m, 1h, 7d or ISO 8601 (PT1H, P7D); got "1e30"',
          );
          for (const [lifetime, seconds] of [
            ['7d', 604_800],
            ['PT1H', 3600],
          ] as const) {
            const { token } = json<{ token: string }>(await hearth('token', 'create', '--community', communityId, '--expires-in', lifetime, '--json'));
            const payload = jwtPayload(token) as { iat: number; exp: number };
            expect(payload.exp - payload.iat, lifetime).toBe(seconds);
          }
        },
      );

      it('token create with an unknown scope is a clear error', { timeout: 180_000 }, async () => {
        expectRefusal(await hearth('token', 'create', '--community', communityId, '--scopes', 'contacts:read,nope', '--json'), 'unknown scope: nope');
      });

      it('source create and list; a duplicate name is a clear error', { timeout: 180_000 }, async () => {
        const source = json<{ sourceId: number }>(await hearth('source', 'create', '--name', 'S', '--json'));
        expect(source).toEqual({ sourceId: expect.any(Number) });
        expect(Number.isInteger(source.sourceId)).toBe(true);

        const listed = json<{ sourceId: number; name: string; kind: string }[]>(await hearth('source', 'list', '--json'));
        expect(listed).toContainEqual(expect.objectContaining({ sourceId: source.sourceId, name: 'S', kind: 'api' }));

        expectRefusal(await hearth('source', 'create', '--name', 'S', '--json'), 'a source named "S" already exists');
      });

      it(
        'source create --kind file --path DIR: a file source of the folder (its absolute path); bad kinds and paths are clear errors',
        { timeout: 180_000 },
        async () => {
          const dir = processes.tempDir();
          const made = json<{ sourceId: number }>(await hearth('source', 'create', '--name', 'Exports', '--kind', 'file', '--path', dir, '--json'));
          const listed = json<{ sourceId: number; name: string; kind: string; path: string | null }[]>(await hearth('source', 'list', '--json'));
          expect(listed).toContainEqual({ sourceId: made.sourceId, name: 'Exports', kind: 'file', path: dir, visible: true, trackerKey: null });

          const human = await hearth('source', 'list');
          expect(human.stdout.split('\n')[0]).toMatch(/^SOURCE +NAME +KIND +PATH +TRACKER KEY$/);
          expect(human.stdout).toMatch(new RegExp(`^${made.sourceId}\\s+Exports\\s+file\\s+\\S+$`, 'm'));

          expectRefusal(
            await hearth('source', 'create', '--name', 'NoPath', '--kind', 'file', '--json'),
            'a file source needs a path (the folder to import from)',
          );
          expectRefusal(
            await hearth('source', 'create', '--name', 'Gone', '--kind', 'file', '--path', `${dir}/missing`, '--json'),
            `path "${dir}/missing" is not a folder`,
          );
          expectUsageError(await hearth('source', 'create', '--name', 'Odd', '--kind', 'ftp', '--json'), '--kind must be api or file');
          expectRefusal(await hearth('source', 'create', '--name', 'ApiPath', '--path', dir, '--json'), 'only a file source takes a path');
        },
      );

      it("source tracker: enable, show, rotate and revoke a source's website tracker; source list shows its key", { timeout: 180_000 }, async () => {
        const { sourceId } = json<{ sourceId: number }>(await hearth('source', 'create', '--name', 'Website', '--json'));
        const enabled = json<{ key: string; allowedOrigins: string[]; snippet: string; identifySecret: string }>(
          await hearth('source', 'tracker', 'enable', String(sourceId), '--origins', 'https://www.example.com,https://example.com', '--json'),
        );
        expect(enabled).toMatchObject({
          key: expect.stringMatching(/^pk_\d+_/),
          allowedOrigins: ['https://www.example.com', 'https://example.com'],
          allowUnverifiedIdentify: false,
          identifySecret: expect.stringMatching(/^tsk_/),
        });
        const shown = await hearth('source', 'tracker', 'show', `sig_${sourceId}`);
        expect(shown.stdout).toContain(`data-key="${enabled.key}"`);
        expect(shown.stdout).toContain('signed only');
        expect(shown.stdout).not.toContain(enabled.identifySecret);
        const allowed = json<{ allowUnverifiedIdentify: boolean; identifySecret?: string }>(
          await hearth('source', 'tracker', 'enable', String(sourceId), '--allow-unverified-identify', 'true', '--json'),
        );
        expect(allowed.allowUnverifiedIdentify).toBe(true);
        expect(allowed).not.toHaveProperty('identifySecret');
        const secret = await hearth('source', 'tracker', 'rotate-secret', String(sourceId));
        expect(secret.stdout).toMatch(/secret {3}tsk_\S+ {3}\(shown once/);
        expect(secret.stdout).not.toContain(enabled.identifySecret);
        expectUsageError(
          await hearth('source', 'tracker', 'enable', String(sourceId), '--allow-unverified-identify', 'yes'),
          '--allow-unverified-identify must be true or false',
        );
        const listed = json<{ sourceId: number; trackerKey: string | null }[]>(await hearth('source', 'list', '--json'));
        expect(listed).toContainEqual(expect.objectContaining({ sourceId, trackerKey: enabled.key }));
        const rotated = json<{ key: string }>(await hearth('source', 'tracker', 'rotate', String(sourceId), '--json'));
        expect(rotated.key).not.toBe(enabled.key);
        expect((await hearth('source', 'tracker', 'revoke', String(sourceId))).stdout).toContain(`${rotated.key} is refused from now on`);
        expectRefusal(await hearth('source', 'tracker', 'show', String(sourceId), '--json'), `source sig_${sourceId} has no website tracker; enable one first`);
        expectUsageError(
          await hearth('source', 'tracker', 'start', String(sourceId)),
          'source tracker takes one of enable, show, rotate, rotate-secret, revoke',
        );
        expectRefusal(
          await hearth('source', 'tracker', 'enable', String(sourceId), '--origins', 'example.com', '--json'),
          'allowedOrigins: "example.com" is not an origin (a scheme and host, as https://www.example.com)',
        );
      });

      it('ingestion: with no server pushing, [] (or a sentence saying so); a bad --community is a clear error', { timeout: 180_000 }, async () => {
        expect(json<unknown[]>(await hearth('ingestion', '--json'))).toEqual([]);
        expect(json<unknown[]>(await hearth('ingestion', '--community', communityId, '--json'))).toEqual([]);
        const human = await hearth('ingestion');
        expect(human.code, human.stderr).toBe(0);
        expect(human.stdout).toBe('no pushes waiting or stored in the last minute\n');
        expect((await hearth('ingestion', '--community', 'com_999999')).code).not.toBe(0);
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

      it('db distribute: without Citus it says what to do first; on a coordinator it lists where each table lives', { timeout: 180_000 }, async () => {
        const result = await hearth('db', 'distribute');
        if (!inProcess?.citus) {
          expectUsageError(
            result,
            'this database has no Citus extension: create it on the coordinator and the workers and add the workers first (docs/scaling.md, "Moving to Citus")',
          );
          return;
        }
        // The test database was distributed when it was first opened.
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/^contacts +distributed$/m);
        expect(result.stdout).toMatch(/^communities +reference$/m);
        expect(result.stdout).toMatch(/^rate_limit_counters +coordinator$/m);
        expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('Every table was in its place already.');
      });

      it('buying-committee set, show, remove and keys; a bad file is refused with every fault named', { timeout: 240_000 }, async () => {
        const dir = processes.tempDir();
        const committee = {
          seniorities: [
            { id: 1, key: 'vp', name: 'VP' },
            { id: 2, key: 'director', name: 'Director' },
          ],
          departments: [
            { id: 5, key: 'engineering', name: 'Engineering' },
            { id: 6, key: 'board', name: 'Board' },
          ],
        };
        const file = path.join(dir, 'committee.json');
        fs.writeFileSync(file, JSON.stringify(committee));

        expectRefusal(
          await hearth('buying-committee', 'show', '--community', communityId),
          'this community has no buying committee (an admin sets one with PUT /api/v2/admin/buying-committee)',
        );
        const set = await hearth('buying-committee', 'set', file, '--community', communityId);
        expect(set.code, set.stderr).toBe(0);
        expect(set.stdout).toBe(`Set the buying committee of ${communityId}: 2 seniorities × 2 departments = 4 cells.\n`);
        expect(set.stderr).toContain('hearth: warning: departments[1].key "board" is not a key of the title classifier');
        expect(json(await hearth('buying-committee', 'show', '--community', communityId, '--json'))).toEqual(committee);
        const shown = await hearth('buying-committee', 'show', '--community', communityId);
        expect(shown.stdout).toMatch(
          /^Seniorities \(rows\):\n {2}ID +KEY +NAME\n {2}1 +vp +VP\n {2}2 +director +Director\nDepartments \(columns\):\n {2}ID +KEY +NAME\n {2}5 +engineering +Engineering\n {2}6 +board +Board\n$/,
        );

        const bad = path.join(dir, 'bad.json');
        fs.writeFileSync(
          bad,
          JSON.stringify({
            seniorities: [
              { id: 1, key: 'vp', name: 'VP' },
              { id: 1, key: 'vp', name: '' },
            ],
            departments: [],
          }),
        );
        expectRefusal(
          await hearth('buying-committee', 'set', bad, '--community', communityId),
          'seniorities[1].id 1 is seniorities[0].id already; seniorities[1].key "vp" is seniorities[0].key already; seniorities[1].name must not be empty; departments must not be empty',
        );
        fs.writeFileSync(bad, JSON.stringify({ seniorities: [{ id: 'one', key: 'vp', name: 'VP' }] }));
        expectRefusal(
          await hearth('buying-committee', 'set', bad, '--community', communityId),
          `${bad}: field "departments" is required; field "seniorities.0.id" must be integer`,
        );
        fs.writeFileSync(bad, '{"seniorities": [');
        expect((await hearth('buying-committee', 'set', bad)).stderr).toMatch(
          new RegExp(`^hearth: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not JSON: `),
        );
        expectUsageError(await hearth('buying-committee', 'set'), 'the committee file (FILE.json) is required');

        const removed = await hearth('buying-committee', 'remove', '--community', communityId);
        expect(removed.code, removed.stderr).toBe(0);
        expect(removed.stdout).toBe(`Removed the buying committee of ${communityId} (2 seniorities × 2 departments = 4 cells).\n`);
        type Entry = { operation: string };
        expect(
          json<Entry[]>(await hearth('audit', '--community', communityId, '--operation', 'buying_committee.*', '--json')).map((entry) => entry.operation),
        ).toEqual(['buying_committee.remove', 'buying_committee.set']);

        const keys = json<{ seniorities: Record<string, string>; departments: Record<string, string> }>(await hearth('buying-committee', 'keys', '--json'));
        expect(Object.keys(keys.seniorities)).toEqual(['c_level', 'vp', 'head', 'director', 'manager', 'lead', 'senior', 'individual_contributor', 'intern']);
        expect(Object.keys(keys.departments)).toContain('developer_relations');
      });

      it('activity-type add, then list includes it', async () => {
        const added = await hearth('activity-type', 'add', '--id', 'my_type', '--name', 'My type');
        expect(added.code, added.stderr).toBe(0);
        expect(added.stdout).toBe('Added activity type my_type ("My type").\n');

        const listed = json<{ id: string; displayName: string; category: string }[]>(await hearth('activity-type', 'list', '--json'));
        expect(listed).toContainEqual({ id: 'my_type', displayName: 'My type', category: 'other' });
      });

      it('object-type create and list; objects import of 2,000 lines shows in GET /api/v2/objects; a bad line stops the import with its number', async () => {
        type ObjectType = { id: string; name: string; assocs: { objectAssocType: string; targetEntity: string; targetObjectTypeId: string | null }[] };
        const company = json<ObjectType>(await hearth('object-type', 'create', '--name', 'Company', '--community', communityId, '--json'));
        const deal = json<ObjectType>(
          await hearth('object-type', 'create', '--name', 'Deal', '--assoc', 'owner:contact', '--assoc', `company:object:${company.id}`, '--json'),
        );
        expect(deal).toEqual({
          id: expect.stringMatching(/^cot_\d+$/),
          name: 'Deal',
          assocs: [
            { objectAssocType: 'owner', targetEntity: 'contact', targetObjectTypeId: null },
            { objectAssocType: 'company', targetEntity: 'object', targetObjectTypeId: company.id },
          ],
        });
        expectRefusal(await hearth('object-type', 'create', '--name', 'DEAL'), `an object type named "Deal" already exists (${deal.id})`);
        const listed = json<ObjectType[]>(await hearth('object-type', 'list', '--json'));
        expect(listed).toEqual(expect.arrayContaining([company, deal]));

        const dir = processes.tempDir();
        const good = path.join(dir, 'deals.jsonl');
        fs.writeFileSync(
          good,
          Array.from({ length: 2000 }, (_, index) => `${JSON.stringify({ recordKey: `k-${index + 1}`, name: `Deal ${index + 1}` })}\n`).join(''),
        );
        const bad = path.join(dir, 'more-deals.jsonl');
        const badLines = Array.from({ length: 1500 }, (_, index) => JSON.stringify({ recordKey: `b-${index + 1}`, name: `More ${index + 1}` }));
        badLines[1202] = JSON.stringify({ recordKey: 'b-1203' });
        fs.writeFileSync(bad, `${badLines.join('\n')}\n`);

        const imported = json(await run(['objects', 'import', good, '--type', deal.id, '--community', communityId, '--json'], 120_000));
        expect(imported).toEqual({ objectTypeId: deal.id, lines: 2000, records: 2000, created: 2000, updated: 0, batches: 4, writtenThroughLine: 2000 });

        const stopped = await run(['objects', 'import', bad, '--type', deal.id], 120_000);
        expect(stopped.code).toBe(1);
        expect(stopped.stdout).toBe('');
        expect(stopped.stderr).toBe(
          'hearth: objects import stopped:\n  line 1203: field "name" is required\n' +
            'Written before the stop: 1000 records from lines 1-1000 (1000 created, 0 updated, 2 batches); nothing from line 1001 on was written.\n',
        );

        const { token } = json<{ token: string }>(await hearth('token', 'create', '--community', communityId, '--scopes', 'objects:read', '--json'));
        // The embedded database's server is running already; PostgreSQL's is one more process on the database.
        const served = server ?? (await processes.serve(env));
        try {
          const keys: string[] = [];
          let cursor: string | null = null;
          let recordCount: number | undefined;
          do {
            const query: string = `objectTypeId=${deal.id}&limit=1000&cols=recordKey,recordCount${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
            const page = await call(`${served.url}/api/v2/objects?${query}`, { token });
            expect(page.status, JSON.stringify(page.body)).toBe(200);
            const body = page.body as { data: { recordKey: string; name: string }[]; meta: { nextCursor: string | null; recordCount: number } };
            keys.push(...body.data.map((object) => object.recordKey));
            recordCount = body.meta.recordCount;
            cursor = body.meta.nextCursor;
          } while (cursor);
          expect(recordCount).toBe(3000);
          const expected = [...Array.from({ length: 2000 }, (_, index) => `k-${index + 1}`), ...Array.from({ length: 1000 }, (_, index) => `b-${index + 1}`)];
          // Each request writes its new objects in record key order (upsertObjects), so IDs follow the keys' text order.
          expect([...keys].sort()).toEqual(expected.sort());
        } finally {
          if (served !== server) {
            served.process.kill('SIGTERM');
            await served.process.waitForExit();
          }
        }
      }, 240_000);

      // After the objects test: its import made the community's first object, co_1 (a fresh database).
      it('feed add, list, fetch and remove; bad kinds, IDs and parents are clear errors', { timeout: 180_000 }, async () => {
        type Feed = { id: string; objectId: string; kind: string; url: string; intervalMinutes: number; lastStatus: string | null };
        const added = json<Feed>(
          await hearth('feed', 'add', '--object', 'co_1', '--kind', 'rss', '--url', 'https://acme.example.com/blog.xml', '--interval', '1h30m', '--json'),
        );
        expect(added).toMatchObject({
          id: expect.stringMatching(/^feed_\d+$/),
          objectId: 'co_1',
          kind: 'rss',
          url: 'https://acme.example.com/blog.xml',
          intervalMinutes: 90,
          lastStatus: null,
        });
        expect(json<Feed[]>(await hearth('feed', 'list', '--json'))).toEqual([expect.objectContaining({ id: added.id })]);
        const listed = await hearth('feed', 'list');
        expect(listed.stdout.split('\n')[0]).toMatch(/^FEED +OF +KIND +URL +LAST FETCH +STATUS +NEXT FETCH$/);
        expect(json<{ jobId: number }>(await hearth('feed', 'fetch', added.id, '--json'))).toEqual({ jobId: expect.any(Number) });
        expectUsageError(
          await hearth('feed', 'add', '--object', 'co_1', '--kind', 'workday', '--url', 'https://x.example.com/'),
          '--kind must be one of greenhouse, lever, ashby, rss',
        );
        expectUsageError(await hearth('feed', 'add', '--object', 'co_1', '--kind', 'rss'), '--url is required');
        expectRefusal(
          await hearth('feed', 'add', '--organization', 'o_999999', '--kind', 'rss', '--url', 'https://x.example.com/'),
          'organization o_999999 not found',
        );
        expectRefusal(
          await hearth('feed', 'add', '--kind', 'rss', '--url', 'https://x.example.com/'),
          'exactly one of organizationId and objectId is required',
        );
        expectUsageError(await hearth('feed', 'remove', '12'), '"12" is not a feed ID (feed_N)');
        expect(json(await hearth('feed', 'remove', added.id, '--json'))).toEqual({ removed: added.id });
        expectRefusal(await hearth('feed', 'remove', added.id), `no feed ${added.id}`);
        expect(json<Feed[]>(await hearth('feed', 'list', '--json'))).toEqual([]);
      });

      // The rules are tested through HTTP (custom-fields-admin.test.ts); here, that the command reaches them.
      it('custom-field add, list, update and retire; bad input is a clear error', { timeout: 180_000 }, async () => {
        type Field = {
          id: string;
          name: string;
          valueType: string;
          multivalue: boolean;
          allowedValues: string[];
          description: string | null;
          retiredAt: string | null;
        };
        const added = json<Field>(
          await hearth(
            'custom-field',
            'add',
            '--name',
            'Plan',
            '--entity',
            'contact,organization',
            '--type',
            'enum',
            '--values',
            'free,pro',
            '--multivalue',
            'true',
            '--json',
          ),
        );
        expect(added).toMatchObject({
          id: expect.stringMatching(/^cf_\d+$/),
          name: 'Plan',
          valueType: 'enum',
          multivalue: true,
          allowedValues: ['free', 'pro'],
          retiredAt: null,
        });
        const changed = json<Field>(await hearth('custom-field', 'update', added.id, '--values', 'free,pro,team', '--description', 'Billing plan', '--json'));
        expect(changed).toMatchObject({ allowedValues: ['free', 'pro', 'team'], description: 'Billing plan' });
        const listed = await hearth('custom-field', 'list');
        expect(listed.stdout.split('\n')[0]).toMatch(/^FIELD +NAME +FOR +TYPE +ALLOWED +WRITERS +VALUES/);
        expect(listed.stdout).toContain('free, pro, team');
        expectUsageError(
          await hearth('custom-field', 'add', '--name', 'X', '--entity', 'contact', '--type', 'string', '--writers', 'crm'),
          '--writers takes source IDs (numbers, as `hearth source list` shows), not "crm"',
        );
        expectRefusal(await hearth('custom-field', 'add', '--name', 'Tier', '--entity', 'contact', '--type', 'enum'), 'an enum field needs allowedValues');
        expect(json<Field>(await hearth('custom-field', 'retire', added.id, '--json'))).toMatchObject({ id: added.id, retiredAt: expect.any(String) });
        expect(json<Field[]>(await hearth('custom-field', 'list', '--all', '--json'))).toEqual([
          expect.objectContaining({ id: added.id, retiredAt: expect.any(String) }),
        ]);
      });

      // The rules are tested through HTTP (research-prompts.test.ts, insights.test.ts); here, that the commands reach them.
      it('research-prompt add, update, list and retire; research import names faults by line; insights without a model', { timeout: 180_000 }, async () => {
        type Prompt = { promptId: string; promptName: string; isPrimaryPrompt: boolean; retiredAt: string | null };
        expect(
          json<Prompt>(await hearth('research-prompt', 'add', 'fit', '--name', 'Good fit?', '--prompt', 'Is it a fit?', '--primary', 'true', '--json')),
        ).toMatchObject({
          promptId: 'fit',
          promptName: 'Good fit?',
          isPrimaryPrompt: true,
        });
        expect(json<Prompt>(await hearth('research-prompt', 'update', 'fit', '--name', 'Fit', '--json'))).toMatchObject({ promptId: 'fit', promptName: 'Fit' });
        expect((await hearth('research-prompt', 'list')).stdout.split('\n')[0]).toMatch(/^ID +NAME +PRIMARY +ANSWERS +PROMPT$/);
        expectRefusal(
          await hearth('research-prompt', 'add', 'Fit!', '--name', 'x', '--prompt', 'y'),
          '"Fit!" is not a valid promptId (lowercase letters, digits, "-" and "_", up to 64, starting with a letter or digit)',
        );
        const file = path.join(processes.tempDir(), 'answers.jsonl');
        fs.writeFileSync(
          file,
          '{"domain":"nowhere.example.com","promptId":"fit","answer":"Yes"}\n\n{"organizationId":"o_999999","promptId":"gone","answer":"No"}\n',
        );
        expectRefusal(
          await hearth('research', 'import', file),
          'nothing was imported: line 1: no organization with the domain "nowhere.example.com"; line 3: no organization o_999999; line 3: no live research prompt "gone"',
        );
        expect(json<Prompt>(await hearth('research-prompt', 'retire', 'fit', '--json'))).toMatchObject({ promptId: 'fit', retiredAt: expect.any(String) });
        expect(json<{ configured: boolean; latestJob: null }>(await hearth('insights', '--json'))).toMatchObject({ configured: false, latestJob: null });
        expectRefusal(
          await hearth('insights', 'refresh'),
          'no model endpoint is configured: set HEARTH_LLM_URL and HEARTH_LLM_MODEL (docs/insights.md); without one the texts are the deterministic ones',
        );
      });

      // The rules are tested through HTTP (lead-scores.test.ts); here, that the commands reach them.
      it('lead-score add, list, dry-run, update and retire; a bad file is a clear error', { timeout: 180_000 }, async () => {
        type Score = { id: string; name: string; isPrimaryScore: boolean; recomputeJobId: number | null; version: number; retiredAt: string | null };
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-lead-score-'));
        const file = path.join(dir, 'score.json');
        fs.writeFileSync(file, JSON.stringify({ name: 'Engaged', entityType: 'contact', weights: [{ activityType: 'starred_repo', weight: 2 }] }));
        const added = json<Score>(await hearth('lead-score', 'add', file, '--primary', 'true', '--community', communityId, '--json'));
        expect(added).toMatchObject({ id: expect.stringMatching(/^ls_\d+$/), name: 'Engaged', isPrimaryScore: true, recomputeJobId: expect.any(Number) });
        const listed = await hearth('lead-score', 'list', '--community', communityId);
        expect(listed.stdout.split('\n')[0]).toMatch(/^SCORE +NAME +FOR +STATE +RULES +SCORED +COMPUTED/);
        expect(listed.stdout).toContain('enabled, primary');
        const dry = json<{ entityType: string; scored: number; top: unknown[] }>(
          await hearth('lead-score', 'dry-run', added.id, '--community', communityId, '--json'),
        );
        expect(dry).toMatchObject({ entityType: 'contact', scored: expect.any(Number), top: expect.any(Array) });
        expect(json<Score>(await hearth('lead-score', 'update', added.id, '--name', 'Builders', '--community', communityId, '--json'))).toMatchObject({
          name: 'Builders',
          version: 1,
        });
        fs.writeFileSync(file, JSON.stringify({ name: 'Bad', entityType: 'contact', fit: [{ field: 'titleSeniority', values: ['ceo'], points: 1 }] }));
        expectRefusal(
          await hearth('lead-score', 'add', file, '--community', communityId),
          '"fit.0.values.0" must be one of c_level, vp, head, director, manager, lead, senior, individual_contributor, intern (not "ceo")',
        );
        expect(json<Score>(await hearth('lead-score', 'retire', added.id, '--community', communityId, '--json'))).toMatchObject({
          id: added.id,
          retiredAt: expect.any(String),
        });
      });

      it.runIf(engine === 'pglite')(
        'with the server stopped, a command opens the data directory itself and finds what the commands wrote through the server',
        { timeout: 180_000 },
        async () => {
          const served = json<unknown[]>(await hearth('source', 'list', '--json'));
          server!.process.kill('SIGTERM');
          expect(await server!.process.waitForExit()).toEqual({ code: 0, signal: null });
          expect(fs.existsSync(path.join(env.HEARTH_DATA_DIR!, 'hearth.sock'))).toBe(false);
          expect(json<unknown[]>(await hearth('source', 'list', '--json'))).toEqual(served);
        },
      );
    });
  });
}

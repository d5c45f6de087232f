import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, Processes, readLock, type Env, type HearthServer } from '../helpers/process.ts';

/**
 * The embedded database is one process's, so while `hearth serve` holds a data directory, other `hearth`
 * commands run inside it, through the socket hearth.sock in the directory (src/cli/command-socket.ts):
 * the same output, errors and exit codes as when they open the database themselves.
 */
describe('hearth commands while the embedded server runs', () => {
  const processes = new Processes();
  let dataDir: string;
  let env: Env;
  let server: HearthServer;
  const hearth = (...args: string[]) => processes.run(args, env);

  beforeAll(async () => {
    dataDir = processes.tempDir();
    env = { HEARTH_DATA_DIR: dataDir };
    server = await processes.serve(env);
  });
  afterAll(() => processes.cleanup());

  it('the server listens on a socket in the data directory that only its user may use', () => {
    const socket = fs.statSync(path.join(dataDir, 'hearth.sock'));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
  });

  it("token create, list and revoke, jobs and audit run in the server; the server's API accepts the token at once", { timeout: 120_000 }, async () => {
    const created = await hearth('token', 'create', '--scopes', 'contacts:read', '--name', 'through-server', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { token, jti } = JSON.parse(created.stdout) as { token: string; jti: string };
    expect((await call(`${server.url}/api/v2/contacts`, { token })).status).toBe(200);

    const listed = await hearth('token', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^JTI +COMMUNITY +NAME +SCOPES +STATE$/);
    expect(listed.stdout).toMatch(new RegExp(`^${jti} +com_1 +through-server +contacts:read +active$`, 'm'));

    expect((await hearth('token', 'revoke', jti)).stdout).toBe(`Revoked ${jti}.\n`);
    expect((await call(`${server.url}/api/v2/contacts`, { token })).status).toBe(403);

    const jobs = await hearth('jobs', '--json');
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(JSON.parse(jobs.stdout)).toEqual(expect.any(Array));

    const audit = JSON.parse((await hearth('audit', '--entity', jti, '--since', '1h', '--json')).stdout) as { operation: string; actor: string }[];
    expect(audit.map((entry) => entry.operation)).toEqual(['token.revoke', 'token.create']);
    expect(audit[0]!.actor).toBe(`cli:${os.userInfo().username}@${os.hostname()}`);

    // Refusals are the same: one line, exit 1, the usage pointer for a usage error.
    const refused = await hearth('jobs', '--status', 'done');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe('hearth: --status must be one of queued, running, completed, failed\nRun `hearth --help` for usage.\n');
    expect(server.process.running).toBe(true);
  });

  it("a file named relative to the caller's directory is read there (lead-score add)", { timeout: 60_000 }, async () => {
    const dir = processes.tempDir();
    fs.writeFileSync(
      path.join(dir, 'score.json'),
      JSON.stringify({ name: 'Engaged', entityType: 'contact', weights: [{ activityType: 'starred_repo', weight: 2 }] }),
    );
    const added = await processes.run(['lead-score', 'add', path.relative(process.cwd(), path.join(dir, 'score.json')), '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ name: 'Engaged', entityType: 'contact' });
  });

  it(
    'backup while serving, export through the server, restore refused while it runs; after it stops, restore brings the backup back',
    { timeout: 180_000 },
    async () => {
      const dir = processes.tempDir();
      const before = JSON.parse((await hearth('token', 'create', '--name', 'in-the-backup', '--json')).stdout) as { jti: string };
      const file = path.join(dir, 'hearth.backup');
      const backup = await hearth('backup', file, '--json');
      expect(backup.code, backup.stderr).toBe(0);
      expect(JSON.parse(backup.stdout)).toEqual({ file, bytes: fs.statSync(file).size });
      expect(zlib.gunzipSync(fs.readFileSync(file)).subarray(257, 262).toString('latin1')).toBe('ustar');
      const after = JSON.parse((await hearth('token', 'create', '--name', 'after-the-backup', '--json')).stdout) as { jti: string };

      // A member to export (the admin's own contact is a console user's, which exports leave out).
      const source = JSON.parse((await hearth('source', 'create', '--name', 'Pushes', '--json')).stdout) as { sourceId: number };
      const pusher = JSON.parse((await hearth('token', 'create', '--scopes', 'sources:write', '--name', 'pusher', '--json')).stdout) as { token: string };
      const pushed = await call(`${server.url}/community/v1/source/${source.sourceId}/user`, {
        token: pusher.token,
        method: 'POST',
        body: { id: 'ada', fullName: 'Ada Lovelace', email: 'ada@example.org' },
      });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(202);
      const exported = await hearth('export', 'contacts');
      expect(exported.code, exported.stderr).toBe(0);
      const contacts = exported.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; primaryEmail: string });
      expect(contacts).toEqual([expect.objectContaining({ primaryEmail: 'ada@example.org' })]);
      expect(exported.stderr).toBe('exporting contacts: 1/1 contacts (100%)\n');

      const refused = await hearth('restore', file);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`The data directory ${dataDir} is in use by another Hearth process (pid ${server.process.pid}, "hearth serve"`);
      expect(server.process.running).toBe(true);

      server.process.kill('SIGTERM');
      expect((await server.process.waitForExit()).code).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'hearth.sock'))).toBe(false);
      expect(readLock(dataDir)).toBeNull();

      const restored = await hearth('restore', file);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(
        new RegExp(`^Restored the embedded database in ${dataDir} from ${file}\\. The database it replaced is in ${dataDir}/pgdata\\.before-restore-`),
      );
      const tokens = JSON.parse((await hearth('token', 'list', '--json')).stdout) as { jti: string }[];
      expect(tokens.map((token) => token.jti)).toContain(before.jti);
      expect(tokens.map((token) => token.jti)).not.toContain(after.jti);

      // Without a server, backup opens the database itself; a file that is no backup is refused, the database kept.
      const offline = path.join(dir, 'offline.backup');
      expect((await hearth('backup', offline)).stdout).toMatch(new RegExp(`^Backed up the embedded database to ${offline} \\(\\d+\\.\\d MB\\)\\.\\n$`));
      const junk = path.join(dir, 'junk');
      fs.writeFileSync(junk, 'not a backup');
      const bad = await hearth('restore', junk);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`hearth: ${junk} is not a backup made by \`hearth backup\``);
      expect((JSON.parse((await hearth('token', 'list', '--json')).stdout) as unknown[]).length).toBe(tokens.length);
    },
  );

  it('PostgreSQL: restore points to pg_restore, without touching the server', async () => {
    const restore = await processes.run(['restore', 'x'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(restore.stderr).toBe(
      'hearth: hearth restore is for the embedded database; for PostgreSQL use pg_dump and pg_restore (README: Backups)\nRun `hearth --help` for usage.\n',
    );
  });
});

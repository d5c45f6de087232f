import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, freePort, Processes, REPO_ROOT, type RunResult } from '../helpers/process.ts';

/**
 * `hearth` on a database it cannot use says so in one line, with what to do, and exits 1: no stack trace.
 * And its help: fast, and what `npx hearth --help` shows.
 */
describe('hearth on a database it cannot use', () => {
  const processes = new Processes();
  afterAll(() => processes.cleanup());

  function expectOneLine(result: RunResult, message: RegExp) {
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  }

  it.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: a database that does not exist, a closed port', async () => {
    const server = new URL(process.env.TEST_DATABASE_URL!);
    const missing = new URL(server);
    missing.pathname = '/hearth_no_such_database';
    expectOneLine(
      await processes.run(['token', 'list'], { DATABASE_URL: missing.href }),
      new RegExp(
        `^hearth: PostgreSQL at ${server.hostname}:${server.port || 5432} has no database "hearth_no_such_database"\\. Create it \\(createdb hearth_no_such_database\\) or fix the database name in DATABASE_URL\\.\\n$`,
      ),
    );
    const closed = await freePort();
    expectOneLine(
      await processes.run(['jobs'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/postgres` }),
      new RegExp(`^hearth: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${closed}: the connection was refused\\. Is PostgreSQL running`),
    );
    // `serve` says the same.
    expectOneLine(
      await processes.run(['serve'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/postgres`, PORT: String(await freePort()) }),
      /^hearth: cannot connect to PostgreSQL at /,
    );
  });

  it('embedded: a data directory that is a file, a database directory that is damaged', async () => {
    const dir = processes.tempDir();
    const file = path.join(dir, 'not-a-directory');
    fs.writeFileSync(file, 'x');
    expectOneLine(
      await processes.run(['token', 'list'], { HEARTH_DATA_DIR: file }),
      new RegExp(`^hearth: cannot use the data directory ${file}: it \\(or a parent\\) is not a directory\\. Set HEARTH_DATA_DIR`),
    );
    const damaged = path.join(dir, 'damaged');
    fs.mkdirSync(path.join(damaged, 'pgdata'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(damaged, 'pgdata', 'PG_VERSION'), 'not a version\n');
    expectOneLine(
      await processes.run(['jobs'], { HEARTH_DATA_DIR: damaged }),
      new RegExp(`^hearth: cannot open the embedded database in ${damaged}/pgdata \\(.*\\): it is not a Hearth database or it is damaged\\. Restore a backup`),
    );
    // The failed open left no lock behind.
    expect(fs.existsSync(path.join(damaged, 'hearth.lock'))).toBe(false);
  });

  it('a bad duration in the environment is one line too', async () => {
    expectOneLine(
      await processes.run(['jobs'], { HEARTH_DATA_DIR: processes.tempDir(), HEARTH_JOB_LEASE: 'soon' }),
      /^hearth: HEARTH_JOB_LEASE must be a duration such as 30s, 15m, 1h, 7d or ISO 8601 \(PT1H, P7D\) \(a bare number is seconds\), from 1 s to 1 d; got "soon"\n$/,
    );
  });

  it("--help answers without opening a database (here, one that cannot be opened), and `npx hearth --help` is Hearth's", async () => {
    const help = await processes.run(['--help'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: hearth <command>/);
    const npx = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn('npx', ['--offline', 'hearth', '--help'], { cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout }));
    });
    expect(npx.code).toBe(0);
    expect(npx.stdout).toMatch(/^Usage: hearth <command>/);
  });
});

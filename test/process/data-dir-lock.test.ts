import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Processes, call, freePort, readLock, type HearthServer } from '../helpers/process.ts';

/**
 * The embedded database allows one process per data directory: while `hearth serve` runs, another process
 * that would open the directory (a second server; `hearth restore`, which would replace its database)
 * stops at once with a message naming the directory and the pid that holds it, and leaves the holder's
 * lock (and the holder) alone. Other commands run in the server (cli-server.test.ts).
 */
describe('a second process on a data directory in use', () => {
  const processes = new Processes();
  let dataDir: string;
  let server: HearthServer;

  beforeAll(async () => {
    dataDir = processes.tempDir();
    server = await processes.serve({ HEARTH_DATA_DIR: dataDir });
  });
  afterAll(() => processes.cleanup());

  it.each([
    ['a second `serve`', ['serve'], 'hearth serve'],
    ['`restore`', ['restore', 'BACKUP'], 'hearth restore'],
  ])('%s fails fast, naming the directory and the holding pid', async (_, given) => {
    // restore reads its file before it asks for the directory: give it one that looks like a backup.
    const backup = path.join(processes.tempDir(), 'backup.tgz');
    fs.writeFileSync(backup, zlib.gzipSync('x'));
    const args = given.map((arg) => (arg === 'BACKUP' ? backup : arg));
    const other = await processes.run(args, { HEARTH_DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'warn' });
    expect(other.code).not.toBe(0);
    expect(other.code).not.toBeNull();
    expect(other.stderr).toContain(`The data directory ${dataDir} is in use by another Hearth process (pid ${server.process.pid}, "hearth serve"`);
    // A known condition, reported as one line: no stack trace.
    expect(other.stderr).not.toMatch(/^\s+at /m);
    expect(other.stdout).not.toMatch(/Hearth is serving|Token/);

    // The refused process left the server's lock and the server alone.
    expect(readLock(dataDir)).toMatchObject({ pid: server.process.pid, command: 'hearth serve' });
    expect(server.process.running).toBe(true);
    expect((await call(`${server.url}/readyz`)).status).toBe(200);
  });
});

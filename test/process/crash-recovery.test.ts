import { afterEach, describe, expect, it } from 'vitest';
import { Processes, call, readLock } from '../helpers/process.ts';

/** What an embedded server committed survives `kill -9`, and the next start takes over the stale lock. */
describe('kill -9 of the embedded server', () => {
  const processes = new Processes();
  afterEach(() => processes.cleanup());

  it('loses nothing committed, and a restart takes over the stale lock', async () => {
    const dataDir = processes.migratedDataDir();
    const env = { HEARTH_DATA_DIR: dataDir };
    const first = await processes.serve(env);
    const admin = /^ {2}Token: +(\S+)$/m.exec(first.process.stdout)?.[1];
    expect(admin).toBeDefined();

    const source = await call(`${first.url}/api/v2/admin/sources`, { method: 'POST', token: admin, body: { name: 'Survivor' } });
    expect(source.status).toBe(201);
    const sourceId = (source.body as { data: { id: string } }).data.id;
    const issued = await call(`${first.url}/api/v2/admin/tokens`, {
      method: 'POST',
      token: admin,
      body: { name: 'after the crash', scopes: ['contacts:read'] },
    });
    expect(issued.status).toBe(201);
    const { token } = (issued.body as { data: { token: string; jti: string } }).data;

    first.process.kill('SIGKILL');
    expect(await first.process.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The killed process could not remove its lock: the restart has to recognize it as stale.
    expect(readLock(dataDir)).toMatchObject({ pid: first.process.pid });

    const second = await processes.serve(env);
    expect(readLock(dataDir)).toMatchObject({ pid: second.process.pid, command: 'hearth serve' });
    // Not a first run again.
    expect(second.process.stdout).not.toMatch(/First run|Token:/);

    const providers = await call(`${second.url}/api/v2/providers`, { token });
    expect(providers.status).toBe(200);
    expect((providers.body as { data: unknown[] }).data).toContainEqual({ id: sourceId, name: 'Survivor', serviceName: 'api' });
  });
});

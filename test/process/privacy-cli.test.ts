import { afterAll, describe, expect, it } from 'vitest';
import { Processes, call } from '../helpers/process.ts';

/**
 * `hearth serve` runs the job worker: a removal request made over HTTP is erased in the background, the
 * server stops cleanly with the worker, and `hearth privacy list` then shows the request completed, with
 * its times and counts and without the address.
 */
describe('removal requests through a real server and `hearth privacy list`', () => {
  const processes = new Processes();
  afterAll(() => processes.cleanup());

  it('serve erases in the background; privacy list shows the outcome', { timeout: 180_000 }, async () => {
    const env = { HEARTH_DATA_DIR: processes.migratedDataDir() };
    const init = await processes.run(['init', '--json'], env);
    expect(init.code, init.stderr).toBe(0);
    const { token } = JSON.parse(init.stdout) as { token: string };

    const server = await processes.serve(env, { logLevel: 'info' });
    const response = await call(`${server.url}/community/v1/user/Gone%40example.org`, { method: 'DELETE', token });
    expect(response).toMatchObject({ status: 200, body: { status: 'success' } });
    await server.process.waitForLine(/"msg":"job completed"/);
    server.process.kill('SIGTERM');
    expect(await server.process.waitForExit()).toEqual({ code: 0, signal: null });

    const listed = await processes.run(['privacy', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(1);
    const requests = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(requests).toEqual([
      {
        id: expect.any(Number),
        communityId: 'com_1',
        status: 'completed',
        email: null,
        requestedAt: expect.any(String),
        deadlineAt: expect.any(String),
        completedAt: expect.any(String),
        erased: { contacts: 0, identities: 0, sourceProfiles: 0, customFieldValues: 0, activities: 0, websiteVisits: 0 },
      },
    ]);
    const request = requests[0]!;
    expect(Date.parse(request.deadlineAt as string) - Date.parse(request.requestedAt as string)).toBe(15 * 86_400_000);
    expect(listed.stdout).not.toMatch(/gone@example/i);

    const human = await processes.run(['privacy', 'list', '--community', 'com_1'], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /^REQUEST +COMMUNITY +STATUS +EMAIL +REQUESTED +DEADLINE +COMPLETED +ERASED\n\d+\s+com_1\s+completed\s+\(erased\)\s+\S+\s+\S+\s+\S+\s+contacts=0 /,
    );
  });
});

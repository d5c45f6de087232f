import { afterAll, describe, expect, it } from 'vitest';
import { Processes, call } from '../helpers/process.ts';

/**
 * `hearth user`: console users from the command line. The first start prints the admin's one-time link; a
 * user added by the CLI signs in to a running server with the link it printed, once.
 */
describe('`hearth user` and the first-run sign-in link', () => {
  const processes = new Processes();
  afterAll(() => processes.cleanup());

  it('adds, lists, resets and removes users; the printed links sign in once', async () => {
    const env = { HEARTH_DATA_DIR: processes.migratedDataDir() };
    const first = await processes.serve(env);
    const printed = /Console: {3}(\S+\/sign-in#link=\S+)/.exec(first.process.stdout)?.[1];
    expect(printed, first.process.stdout).toBeDefined();
    const signIn = (link: string, url = first.url) => call(`${url}/api/v2/session/link`, { method: 'POST', body: { link } });
    expect((await signIn(printed!)).status).toBe(201);
    expect((await signIn(printed!)).status).toBe(403);
    first.process.kill('SIGTERM');
    expect(await first.process.waitForExit()).toEqual({ code: 0, signal: null });

    const added = await processes.run(['user', 'add', 'mia@example.org', '--name', 'Mia', '--role', 'admin', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const { signInLink } = JSON.parse(added.stdout) as { signInLink: string };
    const listed = await processes.run(['user', 'list'], env);
    expect(listed.stdout).toMatch(
      /^ID\s+NAME\s+EMAIL\s+ROLE\s+PASSWORD\nu_1\s+Admin\s+admin@hearth\.local\s+admin\s+not yet\nu_2\s+Mia\s+mia@example\.org\s+admin\s+not yet\n$/,
    );
    const reset = await processes.run(['user', 'reset-password', 'mia@example.org', '--json'], env);
    expect(reset.code, reset.stderr).toBe(0);

    const server = await processes.serve(env);
    // The reset's link voided the one `user add` printed.
    expect((await signIn(signInLink, server.url)).status).toBe(403);
    const mia = await signIn((JSON.parse(reset.stdout) as { signInLink: string }).signInLink, server.url);
    expect(mia.status).toBe(201);
    // A token Mia makes in the console is hers: removing her below revokes it.
    const session = {
      cookie: String(mia.headers.get('set-cookie')).split(';')[0]!,
      'x-csrf-token': (mia.body as { data: { csrfToken: string } }).data.csrfToken,
    };
    const made = await call(`${server.url}/api/v2/admin/tokens`, { method: 'POST', headers: session, body: { name: 'mia’s export' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { token, jti } = (made.body as { data: { token: string; jti: string } }).data;
    server.process.kill('SIGTERM');
    expect(await server.process.waitForExit()).toEqual({ code: 0, signal: null });

    const wrongRole = await processes.run(['user', 'add', 'x@example.org', '--name', 'X', '--role', 'boss'], env);
    expect(wrongRole.code).toBe(1);
    expect(wrongRole.stderr).toContain('--role is admin or member');
    const removed = await processes.run(['user', 'remove', 'mia@example.org'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Warning: the token "mia’s export" (${jti}) was revoked: its user was removed.`);
    const last = await processes.run(['user', 'remove', 'admin@hearth.local'], env);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('at least one admin');
    const again = await processes.serve(env);
    expect((await call(`${again.url}/api/v2/contacts`, { token })).status).toBe(403);
    again.process.kill('SIGTERM');
    expect(await again.process.waitForExit()).toEqual({ code: 0, signal: null });
  }, 180_000);
});

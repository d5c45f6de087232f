import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Processes, call, jwtPayload } from '../helpers/process.ts';

/** `hearth init` and the first-run banner of `hearth serve`, on fresh embedded data directories. */

const processes = new Processes();
afterEach(() => processes.cleanup());

/** The whole output of `init --json`: one line of JSON. */
const INIT_OUTPUT = /^\{"communityId":"com_\d+","sourceId":\d+,"token":"[\w-]+\.[\w-]+\.[\w-]+"\}\n$/;

describe('hearth init --json', () => {
  it('prints one JSON line, is idempotent but for the token, and that token works on `serve` over a socket', async () => {
    const dataDir = processes.tempDir();
    const env = { HEARTH_DATA_DIR: dataDir };

    const first = await processes.run(['init', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(INIT_OUTPUT);
    expect(first.stderr).toBe('');
    const one = JSON.parse(first.stdout) as { communityId: string; sourceId: number; token: string };

    const second = await processes.run(['init', '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(INIT_OUTPUT);
    const two = JSON.parse(second.stdout) as typeof one;
    expect(two.communityId).toBe(one.communityId);
    expect(two.sourceId).toBe(one.sourceId);
    expect(two.token).not.toBe(one.token);

    const server = await processes.serve(env);
    // The community exists already: no first-run banner.
    expect(server.process.stdout).not.toMatch(/First run|Token:/);

    for (const token of [one.token, two.token]) {
      const status = await call(`${server.url}/community/v1/api-token-status`, { token });
      expect(status.status).toBe(200);
      expect(status.body).toEqual({ jti: jwtPayload(token).jti, communityName: 'Default', communityId: one.communityId });
    }
  });
});

describe('hearth serve on a fresh data directory', () => {
  it('prints the first-run banner once; its curl line works; a restart prints no new token', async () => {
    const dataDir = processes.tempDir();
    const env = { HEARTH_DATA_DIR: dataDir };

    const server = await processes.serve(env);
    const out = server.process.stdout;
    expect(out.match(/First run/g)).toHaveLength(1);
    const tokens = [...out.matchAll(/^ {2}Token: +(\S+)$/gm)].map((match) => match[1]!);
    expect(tokens).toHaveLength(1);
    const token = tokens[0]!;
    expect(out.match(/^ {2}Source ID: +\d+$/gm)).toHaveLength(1);
    expect(out.match(/^ {2}Docs: +(\S+)$/gm)).toEqual([`  Docs:      ${server.url}/docs`]);
    // What a server prints often ends up in kept logs: the token expires, a day after it was made, and the
    // banner says how to make one that lasts.
    const payload = jwtPayload(token);
    expect(Number(payload.exp) - Number(payload.iat)).toBe(24 * 3600);
    expect(payload.scope).toBe('read write admin');
    const lasting = /`npx hearth (token create --scopes read,write,admin) --name NAME`/.exec(out);
    expect(lasting, out).not.toBeNull();
    const curlLines = out.split('\n').filter((line) => line.trim().startsWith('curl '));
    expect(curlLines).toEqual([`  curl -H "Authorization: Bearer ${token}" ${server.url}/api/v2/me`]);

    // Run the printed line as a user would paste it, asking curl to add the status code after the body.
    const { stdout } = await promisify(execFile)('/bin/sh', ['-c', `${curlLines[0]!.trim()} --silent --show-error --write-out '\\n%{http_code}'`], {
      timeout: 30_000,
    });
    const [body, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
    expect(status).toBe('200');
    expect(JSON.parse(body)).toMatchObject({ success: true, data: { communityId: expect.stringMatching(/^com_\d+$/) } });

    // The command the banner names makes a token that does not expire, with the admin scope.
    const made = await processes.run([...lasting![1]!.split(' '), '--name', 'lasting', '--json'], env);
    expect(made.code, made.stderr).toBe(0);
    const lastingToken = (JSON.parse(made.stdout) as { token: string }).token;
    expect(jwtPayload(lastingToken)).not.toHaveProperty('exp');
    expect((await call(`${server.url}/api/v2/admin/users`, { token: lastingToken })).status).toBe(200);

    server.process.kill('SIGTERM');
    expect(await server.process.exited).toEqual({ code: 0, signal: null });

    const restarted = await processes.serve(env);
    expect(restarted.process.stdout).not.toMatch(/First run|Token:|Bearer/);
    // The banner's token outlives the restart.
    expect((await call(`${restarted.url}/api/v2/me`, { token })).status).toBe(200);
  });
});

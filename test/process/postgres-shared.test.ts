import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Processes, call, type Env, type HearthServer } from '../helpers/process.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';

/**
 * Several Hearth processes on one PostgreSQL database share their state: rate-limit counters and token
 * revocations take effect in every process at once.
 *
 * PostgreSQL only: the embedded database allows one process per data directory (see data-dir-lock.test.ts),
 * so there is nothing to share there. Skipped unless TEST_DATABASE_URL names a server.
 */

const RATE_LIMIT = 10;
// A long window, so that the eleven requests are (practically) never split by a window boundary; windows
// are aligned to the clock, so the test checks, and starts over once with a new token if they were.
const WINDOW_SECONDS = 3600;

describe.skipIf(!process.env.TEST_DATABASE_URL)('two `serve` processes on one PostgreSQL database', () => {
  const processes = new Processes();
  let dropDatabase: (() => Promise<void>) | undefined;
  let env: Env;
  let admin: string;
  let servers: HearthServer[];

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    dropDatabase = database.drop;
    env = { DATABASE_URL: database.url, HEARTH_RATE_LIMIT: String(RATE_LIMIT), HEARTH_RATE_LIMIT_WINDOW: String(WINDOW_SECONDS) };
    // One after the other: the first one's first-run banner gives the admin token.
    const first = await processes.serve(env);
    admin = /^ {2}Token: +(\S+)$/m.exec(first.process.stdout)?.[1] ?? '';
    servers = [first, await processes.serve(env)];
  });
  afterAll(async () => {
    await processes.cleanup();
    await dropDatabase?.();
  });

  /** A new token through the admin API of the first server (one request against the admin token's limit). */
  async function newToken(): Promise<{ token: string; jti: string }> {
    const issued = await call(`${servers[0]!.url}/api/v2/admin/tokens`, { method: 'POST', token: admin, body: { scopes: ['contacts:read'] } });
    expect(issued.status).toBe(201);
    return (issued.body as { data: { token: string; jti: string } }).data;
  }

  it('share one rate limit per token: remaining counts down across both, the 11th request is a 429', async () => {
    expect(servers[0]!.process.pid).not.toBe(servers[1]!.process.pid);
    const window = () => Math.floor(Date.now() / (WINDOW_SECONDS * 1000));

    let responses: Awaited<ReturnType<typeof call>>[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const { token } = await newToken();
      const started = window();
      responses = [];
      for (let i = 0; i <= RATE_LIMIT; i++) responses.push(await call(`${servers[i % 2]!.url}/api/v2/me`, { token }));
      if (window() === started) break;
    }

    const ok = responses.slice(0, RATE_LIMIT);
    expect(ok.map((response) => response.status)).toEqual(Array(RATE_LIMIT).fill(200));
    expect(ok.map((response) => response.headers.get('x-ratelimit-limit'))).toEqual(Array(RATE_LIMIT).fill(String(RATE_LIMIT)));
    // 9, 8, … 0: each process sees the hits the other one counted.
    expect(ok.map((response) => Number(response.headers.get('x-ratelimit-remaining')))).toEqual(
      Array.from({ length: RATE_LIMIT }, (_, i) => RATE_LIMIT - 1 - i),
    );

    const limited = responses[RATE_LIMIT]!;
    expect(limited.status).toBe(429);
    const now = Date.now() / 1000;
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThan(now - 1);
    expect(reset).toBeLessThanOrEqual(Math.ceil(now) + WINDOW_SECONDS);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(limited.body).toEqual({
      reason: expect.any(String),
      rateLimit: { intervalLimit: RATE_LIMIT, intervalRemaining: 0, intervalResetSeconds: retryAfter, waitMs: retryAfter * 1000 },
    });
  });

  it('a token revoked by `hearth token revoke` (another process) is refused at once by both servers', async () => {
    const { token, jti } = await newToken();
    for (const server of servers) expect((await call(`${server.url}/api/v2/me`, { token })).status).toBe(200);

    const revoked = await processes.run(['token', 'revoke', jti], env);
    expect(revoked.code, revoked.stderr).toBe(0);

    for (const server of servers) {
      const refused = await call(`${server.url}/api/v2/me`, { token });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ status: 'forbidden', reason: 'token has been revoked' });
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('two `serve` processes starting together on an empty PostgreSQL database', () => {
  const processes = new Processes();
  let dropDatabase: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await processes.cleanup();
    await dropDatabase?.();
  });

  it('make one community, and only the process that made it prints the first-run banner', async () => {
    const database = await createPostgresDatabase();
    dropDatabase = database.drop;
    const servers = await Promise.all([processes.serve({ DATABASE_URL: database.url }), processes.serve({ DATABASE_URL: database.url })]);
    const banners = servers.filter((server) => /^ {2}Token: +\S+$/m.test(server.process.stdout));
    expect(banners).toHaveLength(1);
    const token = /^ {2}Token: +(\S+)$/m.exec(banners[0]!.process.stdout)![1]!;
    for (const server of servers) {
      const status = await call(`${server.url}/community/v1/api-token-status`, { token });
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ communityName: 'Default' });
    }
    const communities = await processes.run(['community', 'list', '--json'], { DATABASE_URL: database.url });
    expect(JSON.parse(communities.stdout)).toHaveLength(1);
  });
});

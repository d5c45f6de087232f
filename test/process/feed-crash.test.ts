import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { call, freshDatabaseEnv, Processes, waitUntil, type Env, type HearthServer } from '../helpers/process.ts';
import { stubServer } from '../helpers/webhook-receiver.ts';

const ITEMS = 5;

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Acme blog</title><link>https://acme.com/blog</link>
${Array.from({ length: ITEMS }, (_, index) => `<item><title>Post ${index + 1}</title><link>https://acme.com/blog/${index + 1}</link><guid>post-${index + 1}</guid><pubDate>Tue, 03 Nov 2026 1${index}:00:00 GMT</pubDate><description>Post number ${index + 1}.</description></item>`).join('\n')}
</channel></rss>`;

/**
 * A news feed that answers its first request slowly, a few bytes at a time (long enough to kill the server
 * in the middle), and every later one at once.
 */
function slowFeed() {
  let requests = 0;
  let firstStarted: () => void;
  const started = new Promise<void>((resolve) => (firstStarted = resolve));
  const server = stubServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/rss+xml' });
    if (requests > 1) return void response.end(RSS);
    let sent = 0;
    const timer = setInterval(() => {
      response.write(RSS.slice(sent, sent + 20));
      sent += 20;
      if (sent === 20) firstStarted();
      if (sent >= RSS.length) {
        clearInterval(timer);
        response.end();
      }
    }, 100);
    response.on('close', () => clearInterval(timer));
  });
  return {
    started,
    requests: () => requests,
    start: async () => `${await server.start()}/blog.xml`,
    stop: server.stop,
  };
}

/**
 * A feed fetch killed with SIGKILL while the feed's body is still arriving is fetched again when the
 * server starts again (the job machinery: jobs/worker.ts), and what it brings is stored once.
 */
describe.each<Engine>(['pglite', 'postgres'])('a feed fetch survives kill -9 of its server (%s)', (engine) => {
  const processes = new Processes();
  const feed = slowFeed();
  let dropDatabase: (() => Promise<void>) | undefined;
  afterEach(() => processes.cleanup());
  afterAll(async () => {
    await feed.stop();
    await dropDatabase?.();
  });

  it.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)(
    'is retried after the restart and stores its items exactly once',
    { timeout: 120_000 },
    async () => {
      let env: Env;
      ({ env, drop: dropDatabase } = await freshDatabaseEnv(engine, processes));
      // On PostgreSQL, a job whose process died is claimed again once its lease runs out: a short one here. The
      // embedded server takes its jobs back as it starts (its data directory is its alone), whatever the lease.
      env = { ...env, HEARTH_ALLOW_PRIVATE_FETCH: 'true', ...(engine === 'postgres' ? { HEARTH_JOB_LEASE: '2' } : {}) };
      const url = await feed.start();
      // Generous: on a busy machine, creating the embedded database takes a while.
      const init = await processes.run(['init', '--json'], env, 120_000);
      expect(init.code, init.stderr).toBe(0);
      const { token, sourceId } = JSON.parse(init.stdout) as { token: string; sourceId: number };

      const first = await processes.serve(env);
      const made = await call(`${first.url}/community/v1/source/${sourceId}/organization`, { method: 'POST', token, body: { domain: 'acme.com' } });
      const organizationId = (made.body as { organizationId: string }).organizationId;
      const added = await call(`${first.url}/api/v2/admin/feeds`, { method: 'POST', token, body: { organizationId, kind: 'rss', url } });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const feedId = (added.body as { data: { id: string } }).data.id;

      // The worker is reading the body: kill the server in the middle of it.
      await feed.started;
      first.process.kill('SIGKILL');
      await first.process.exited;
      expect(feed.requests()).toBe(1);

      const second: HearthServer = await processes.serve(env);
      const news = async () => {
        const response = await call(`${second.url}/api/v2/news?organizationId=${organizationId}&limit=100`, { token });
        expect(response.status).toBe(200);
        return (response.body as { data: { title: string }[] }).data;
      };
      const fetched = async () =>
        ((await call(`${second.url}/api/v2/admin/feeds/${feedId}`, { token })).body as { data: { lastStatus: string | null } }).data.lastStatus;
      await waitUntil(async () => (await fetched()) === `ok: ${ITEMS} news items`, 'the feed fetched again after the restart');
      expect(feed.requests()).toBe(2);
      expect((await news()).map((item) => item.title).sort()).toEqual(Array.from({ length: ITEMS }, (_, index) => `Post ${index + 1}`));

      // Fetched once more (an admin's fetch now): the same items, each still once.
      const again = await call(`${second.url}/api/v2/admin/feeds/${feedId}/fetch`, { method: 'POST', token });
      expect(again.status).toBe(202);
      await waitUntil(async () => feed.requests() === 3 && (await news()).length === ITEMS, 'a third fetch');
      expect(await news()).toHaveLength(ITEMS);
    },
  );
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { stubServer } from '../helpers/webhook-receiver.ts';

/**
 * A local stand-in for careers boards and news feeds: each path serves what the test puts there, in the
 * recorded formats of the real services, with ETags (304 to a matching If-None-Match) and a log of requests.
 */
function fixtureServer() {
  const routes = new Map<string, { status?: number; type?: string; body: string; etag?: string; location?: string }>();
  const requests: { path: string; ifNoneMatch?: string }[] = [];
  const server = stubServer((request, response) => {
    const { path } = request;
    requests.push({ path, ifNoneMatch: request.headers['if-none-match'] });
    const route = routes.get(path);
    if (!route) return void response.writeHead(404).end('not found');
    if (route.location) return void response.writeHead(302, { location: route.location }).end();
    if (route.etag && request.headers['if-none-match'] === route.etag) return void response.writeHead(304, { etag: route.etag }).end();
    response.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'application/json', ...(route.etag ? { etag: route.etag } : {}) });
    response.end(route.body);
  });
  return { routes, requests, start: server.start, stop: server.stop };
}

const greenhouse = (jobs: { id: number; title: string; location?: string; published?: string }[]) =>
  JSON.stringify({
    jobs: jobs.map((job) => ({
      id: job.id,
      title: job.title,
      updated_at: '2026-11-01T10:00:00-05:00',
      location: { name: job.location ?? 'Remote' },
      absolute_url: `https://boards.greenhouse.io/acme/jobs/${job.id}`,
      first_published: job.published ?? '2026-10-01T09:00:00-04:00',
      content: '&lt;p&gt;Build &lt;strong&gt;developer&lt;/strong&gt; tools &amp;amp; docs.&lt;/p&gt;',
    })),
    meta: { total: jobs.length },
  });

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>Acme blog</title>
    <link>https://acme.com/blog</link>
    <item>
      <title>Acme raises a Series B</title>
      <link>https://acme.com/blog/series-b</link>
      <guid isPermaLink="false">post-101</guid>
      <pubDate>Tue, 03 Nov 2026 14:00:00 GMT</pubDate>
      <category>Funding</category>
      <description><![CDATA[<p>Acme raised $40M to grow its developer platform. The round was led by Example Ventures.</p>]]></description>
    </item>
    <item>
      <title>Release 2.0 &amp; what changed</title>
      <link>https://acme.com/blog/release-2</link>
      <pubDate>Mon, 02 Nov 2026 09:30:00 +0100</pubDate>
      <description>Version 2.0 ships today! It brings a new CLI.</description>
    </item>
  </channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Acme engineering</title>
  <id>urn:acme:engineering</id>
  <updated>2026-11-05T12:00:00Z</updated>
  <entry>
    <title type="html">Scaling &lt;em&gt;ingestion&lt;/em&gt;</title>
    <link rel="alternate" href="https://acme.com/eng/scaling"/>
    <id>urn:acme:eng:7</id>
    <published>2026-11-05T12:00:00Z</published>
    <updated>2026-11-05T12:30:00Z</updated>
    <category term="engineering"/>
    <summary>How we reached ten thousand events per second. Then we went further.</summary>
  </entry>
</feed>`;

/** Admin feeds and the durable fetch jobs that fill job openings and news (docs/reading.md, Feeds). */
describe.each(ENGINES)('feeds (%s)', (engine) => {
  let t: TestApp;
  let worker: Worker;
  const clock = new ManualClock(new Date('2026-11-10T08:00:00Z'));
  const boards = fixtureServer();
  let base: string;
  let org: string;

  const post = (url: string, body: unknown, token = t.token) => t.send('POST', url, body, token);
  const addFeed = async (body: Record<string, unknown>) => {
    const response = await post('/api/v2/admin/feeds', { organizationId: org, ...body });
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { data: { id: string; nextFetchAt: string } }).data;
  };
  const feed = async (id: string) => ((await t.get(`/api/v2/admin/feeds/${id}`)).json() as { data: Record<string, unknown> }).data;
  const openings = async (params = '') =>
    (
      (await t.get(`/api/v2/job-openings?organizationId=${org}&cols=url&limit=100${params}`)).json() as {
        data: { jobTitle: string; isClosed: boolean; location: string | null; jobDescription: string | null; firstSeenAt: string; url: string | null }[];
      }
    ).data;
  const news = async () =>
    (
      (await t.get(`/api/v2/news?organizationId=${org}&limit=100`)).json() as {
        data: { title: string; category: string | null; articleSentence: string | null; publishedAt: string }[];
      }
    ).data;

  beforeAll(async () => {
    base = await boards.start();
    t = await createTestApp(engine, { clock, allowPrivateFetch: true });
    worker = createWorker({ db: t.services.db, clock, queue: t.services.jobs });
    const response = await post(`/community/v1/source/${t.sourceId}/organization`, { domain: 'acme.com' });
    org = (response.json() as { organizationId: string }).organizationId;
  });
  afterAll(async () => {
    await t?.close();
    await boards.stop();
  });

  it('fetches a Greenhouse board at once, then on schedule with a conditional GET, closing what the board no longer lists', async () => {
    boards.routes.set('/greenhouse/acme', {
      body: greenhouse([
        { id: 1, title: 'Developer Advocate' },
        { id: 2, title: 'Staff Engineer', location: 'Berlin' },
      ]),
      etag: '"v1"',
    });
    const created = await addFeed({ kind: 'greenhouse', url: `${base}/greenhouse/acme`, intervalMinutes: 60 });
    expect(created).toMatchObject({ id: expect.stringMatching(/^feed_\d+$/), kind: 'greenhouse', organizationId: org, lastStatus: null, failures: 0 });
    expect(await worker.runUntilIdle()).toBe(1);
    expect(await openings()).toEqual([
      // Both first published at the same time: the later ID first, as the list runs newest first.
      {
        id: expect.any(String),
        jobTitle: 'Staff Engineer',
        location: 'Berlin',
        jobDescription: 'Build developer tools & docs.',
        firstSeenAt: '2026-10-01T13:00:00.000Z',
        isClosed: false,
        url: 'https://boards.greenhouse.io/acme/jobs/2',
      },
      {
        id: expect.any(String),
        jobTitle: 'Developer Advocate',
        location: 'Remote',
        jobDescription: 'Build developer tools & docs.',
        firstSeenAt: '2026-10-01T13:00:00.000Z',
        isClosed: false,
        url: 'https://boards.greenhouse.io/acme/jobs/1',
      },
    ]);
    expect(await feed(created.id)).toMatchObject({
      lastStatus: 'ok: 2 openings listed',
      failures: 0,
      lastFetchedAt: clock.now().toISOString(),
      nextFetchAt: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    });
    // Not due yet: nothing runs.
    expect(await worker.runUntilIdle()).toBe(0);

    // Unchanged board: 304, nothing rewritten.
    clock.advance(3_600_000);
    expect(await worker.runUntilIdle()).toBe(1);
    expect(boards.requests.at(-1)).toEqual({ path: '/greenhouse/acme', ifNoneMatch: '"v1"' });
    expect(await feed(created.id)).toMatchObject({ lastStatus: 'not modified' });

    // Changed board: one gone (closed), one new, one renamed; nothing doubled.
    boards.routes.set('/greenhouse/acme', {
      body: greenhouse([
        { id: 2, title: 'Staff Engineer, Platform', location: 'Berlin' },
        { id: 3, title: 'Community Manager' },
      ]),
      etag: '"v2"',
    });
    clock.advance(3_600_000);
    expect(await worker.runUntilIdle()).toBe(1);
    const after = await openings();
    expect(after.map((row) => [row.jobTitle, row.isClosed])).toEqual(
      expect.arrayContaining([
        ['Developer Advocate', true],
        ['Staff Engineer, Platform', false],
        ['Community Manager', false],
      ]),
    );
    expect(after).toHaveLength(3);
    // Listed again: open again.
    boards.routes.set('/greenhouse/acme', {
      body: greenhouse([
        { id: 1, title: 'Developer Advocate' },
        { id: 2, title: 'Staff Engineer, Platform' },
        { id: 3, title: 'Community Manager' },
      ]),
      etag: '"v3"',
    });
    clock.advance(3_600_000);
    await worker.runUntilIdle();
    expect((await openings()).every((row) => !row.isClosed)).toBe(true);
    const removed = await t.send('DELETE', `/api/v2/admin/feeds/${created.id}`, undefined);
    expect(removed.statusCode).toBe(200);
    clock.advance(3_600_000);
    // The scheduled job finds the feed gone and ends; the openings stay.
    expect(await worker.runUntilIdle()).toBe(1);
    expect(await worker.runUntilIdle()).toBe(0);
    expect(await openings()).toHaveLength(3);
  });

  it('reads Lever and Ashby boards', async () => {
    boards.routes.set('/lever/acme', {
      body: JSON.stringify([
        {
          id: 'a1b2',
          text: 'Solutions Engineer',
          categories: { location: 'New York', team: 'Sales' },
          hostedUrl: 'https://jobs.lever.co/acme/a1b2',
          createdAt: 1760000000000,
          descriptionPlain: 'Help customers.',
        },
      ]),
    });
    boards.routes.set('/ashby/acme', {
      body: JSON.stringify({
        apiVersion: '1',
        jobs: [
          {
            id: 'f00d',
            title: 'Technical Writer',
            location: 'Remote (EU)',
            jobUrl: 'https://jobs.ashbyhq.com/acme/f00d',
            publishedAt: '2026-09-15T08:00:00.000+00:00',
            isListed: true,
            descriptionPlain: 'Write docs.',
          },
          {
            id: 'hidden',
            title: 'Unlisted role',
            location: 'Remote',
            jobUrl: 'https://jobs.ashbyhq.com/acme/hidden',
            publishedAt: '2026-09-15T08:00:00.000+00:00',
            isListed: false,
          },
        ],
      }),
    });
    await addFeed({ kind: 'lever', url: `${base}/lever/acme` });
    await addFeed({ kind: 'ashby', url: `${base}/ashby/acme` });
    expect(await worker.runUntilIdle()).toBe(2);
    const titles = (await openings()).map((row) => row.jobTitle);
    expect(titles).toEqual(expect.arrayContaining(['Solutions Engineer', 'Technical Writer']));
    expect(titles).not.toContain('Unlisted role');
    expect((await openings()).find((row) => row.jobTitle === 'Solutions Engineer')).toMatchObject({
      location: 'New York',
      firstSeenAt: new Date(1760000000000).toISOString(),
      jobDescription: 'Help customers.',
    });
  });

  it('reads RSS and Atom news feeds, once per item however often fetched', async () => {
    boards.routes.set('/blog.rss', { type: 'application/rss+xml', body: RSS });
    boards.routes.set('/eng.atom', { type: 'application/atom+xml', body: ATOM });
    const rss = await addFeed({ kind: 'rss', url: `${base}/blog.rss`, intervalMinutes: 30 });
    await addFeed({ kind: 'rss', url: `${base}/eng.atom`, intervalMinutes: 30 });
    expect(await worker.runUntilIdle()).toBe(2);
    expect(await news()).toEqual([
      {
        id: expect.any(String),
        title: 'Scaling ingestion',
        category: 'engineering',
        articleSentence: 'How we reached ten thousand events per second.',
        publishedAt: '2026-11-05T12:00:00.000Z',
      },
      {
        id: expect.any(String),
        title: 'Acme raises a Series B',
        category: 'Funding',
        articleSentence: 'Acme raised $40M to grow its developer platform.',
        publishedAt: '2026-11-03T14:00:00.000Z',
      },
      {
        id: expect.any(String),
        title: 'Release 2.0 & what changed',
        category: null,
        articleSentence: 'Version 2.0 ships today!',
        publishedAt: '2026-11-02T08:30:00.000Z',
      },
    ]);
    clock.advance(30 * 60_000);
    expect(await worker.runUntilIdle()).toBe(2);
    expect(await news()).toHaveLength(3);
    expect(await feed(rss.id)).toMatchObject({ lastStatus: 'ok: 2 news items' });
  });

  it('records a failed fetch, tries again sooner with backoff, and recovers', async () => {
    boards.routes.set('/flaky', { status: 503, body: 'busy' });
    const flaky = await addFeed({ kind: 'greenhouse', url: `${base}/flaky`, intervalMinutes: 120 });
    await worker.runUntilIdle();
    const failed = await feed(flaky.id);
    expect(failed).toMatchObject({ lastStatus: 'the server answered 503', failures: 1, nextFetchAt: new Date(clock.now().getTime() + 60_000).toISOString() });
    boards.routes.set('/flaky', { body: 'not json' });
    clock.advance(60_000);
    await worker.runUntilIdle();
    expect(await feed(flaky.id)).toMatchObject({
      lastStatus: 'the answer is not JSON',
      failures: 2,
      nextFetchAt: new Date(clock.now().getTime() + 120_000).toISOString(),
    });
    boards.routes.set('/flaky', { body: greenhouse([]) });
    clock.advance(120_000);
    await worker.runUntilIdle();
    expect(await feed(flaky.id)).toMatchObject({
      lastStatus: 'ok: 0 openings listed',
      failures: 0,
      nextFetchAt: new Date(clock.now().getTime() + 120 * 60_000).toISOString(),
    });
    // Redirects are followed; a fetch now runs as a job and leaves the schedule alone.
    boards.routes.set('/moved', { body: '', location: '/greenhouse/acme' });
    const moved = await addFeed({ kind: 'greenhouse', url: `${base}/moved` });
    await worker.runUntilIdle();
    expect(await feed(moved.id)).toMatchObject({ lastStatus: 'ok: 3 openings listed' });
    const before = await feed(moved.id);
    const now = await post(`/api/v2/admin/feeds/${moved.id}/fetch`, {});
    expect(now.statusCode, now.body).toBe(202);
    expect(now.json()).toEqual({ success: true, data: { jobId: expect.any(Number) } });
    expect(await worker.runUntilIdle()).toBe(1);
    expect((await feed(moved.id)).nextFetchAt).toBe(before.nextFetchAt);
  });

  it('checks what admins give it, and is admin-only', async () => {
    const bad = async (body: Record<string, unknown>, status: number, words: string) => {
      const response = await post('/api/v2/admin/feeds', body);
      expect(response.statusCode, response.body).toBe(status);
      expect(response.body).toContain(words);
    };
    await bad({ organizationId: org, kind: 'workday', url: `${base}/x` }, 400, 'kind');
    await bad({ organizationId: org, kind: 'rss', url: 'not a url' }, 400, 'not a URL');
    await bad({ organizationId: org, kind: 'rss', url: 'ftp://acme.com/feed' }, 400, 'http');
    await bad({ kind: 'rss', url: `${base}/blog.rss` }, 400, 'exactly one of organizationId and objectId');
    await bad({ organizationId: 'o_999999', kind: 'rss', url: `${base}/blog.rss` }, 404, 'org_not_found');
    await bad({ organizationId: org, kind: 'rss', url: `${base}/blog.rss` }, 409, 'already has a feed');
    await bad({ organizationId: org, kind: 'rss', url: `${base}/other.rss`, intervalMinutes: 1 }, 400, 'intervalMinutes');
    expect((await t.get('/api/v2/admin/feeds/feed_x')).statusCode).toBe(400);
    expect((await t.get('/api/v2/admin/feeds/feed_999999')).statusCode).toBe(404);
    const listed = (await t.get('/api/v2/admin/feeds')).json() as { data: { kind: string }[] };
    expect(listed.data.length).toBeGreaterThanOrEqual(5);
    const member = await t.issueToken(['read', 'write']);
    expect((await t.get('/api/v2/admin/feeds', member)).statusCode).toBe(403);
    expect((await post('/api/v2/admin/feeds', { organizationId: org, kind: 'rss', url: `${base}/x.rss` }, member)).statusCode).toBe(403);
    const audit = await t.services.db.selectFrom('audit_log').select('operation').where('operation', 'like', 'feed.%').execute();
    expect(new Set(audit.map((row) => row.operation))).toEqual(new Set(['feed.create', 'feed.delete', 'feed.fetch']));
  });
});

/** Without the operator's permission, feeds do not reach private or loopback addresses. */
describe.each(ENGINES)('feeds without private addresses (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-11-10T08:00:00Z'));
  const boards = fixtureServer();
  let base: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    base = await boards.start();
  });
  afterAll(async () => {
    await t?.close();
    await boards.stop().catch(() => undefined);
  });

  it('refuses a private address at registration, as webhooks do', async () => {
    const org = ((await t.send('POST', `/community/v1/source/${t.sourceId}/organization`, { domain: 'initech.com' })).json() as { organizationId: string })
      .organizationId;
    expect(org).toEqual(expect.any(String));
    const port = new URL(base).port;
    for (const [url, host] of [
      [`${base}/feed`, '127.0.0.1'],
      [`http://[::1]:${port}/feed`, '::1'],
      [`http://10.1.2.3/feed`, '10.1.2.3'],
      [`http://169.254.169.254/latest/meta-data/`, '169.254.169.254'],
      // A URL's IPv6 host is normalized: ::ffff:127.0.0.1 arrives as ::ffff:7f00:1, and is refused as 127.0.0.1.
      [`http://[::ffff:127.0.0.1]:${port}/feed`, '::ffff:7f00:1'],
    ] as const) {
      const refused = await t.send('POST', '/api/v2/admin/feeds', { organizationId: org, kind: 'rss', url });
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json().error.message, url).toBe(
        `url: ${host} is a private or special address, which Hearth does not reach unless the operator allows it (HEARTH_ALLOW_PRIVATE_FETCH)`,
      );
    }
    const credentials = await t.send('POST', '/api/v2/admin/feeds', { organizationId: org, kind: 'rss', url: 'https://user:secret@example.com/feed' });
    expect(credentials.statusCode).toBe(400);
    expect(credentials.json().error.message).toBe('url must not carry a user name or password');
    expect((await t.get('/api/v2/admin/feeds')).json().data).toEqual([]);
  });

  it('refuses a name that resolves to loopback when it fetches, and records why without the address', async () => {
    boards.routes.set('/feed', { body: RSS });
    const org = ((await t.send('POST', `/community/v1/source/${t.sourceId}/organization`, { domain: 'acme.com' })).json() as { organizationId: string })
      .organizationId;
    const created = await t.send('POST', '/api/v2/admin/feeds', { organizationId: org, kind: 'rss', url: `http://localhost:${new URL(base).port}/feed` });
    expect(created.statusCode, created.body).toBe(201);
    await createWorker({ db: t.services.db, clock, queue: t.services.jobs }).runUntilIdle();
    const feeds = ((await t.get('/api/v2/admin/feeds')).json() as { data: { lastStatus: string; failures: number }[] }).data;
    expect(feeds).toMatchObject([{ failures: 1, lastStatus: 'refused: private address' }]);
    expect(boards.requests).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type PlatformAccess, type StreamPage, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { emptyTranslation, textOfHtml, translateComments, articleActivity, articleSkipReason } from '../../src/modules/connectors/devto/devto-activities.ts';
import { devtoConnector, type DevtoSecrets, type DevtoSettings } from '../../src/modules/connectors/devto/devto-connector.ts';
import { personOf } from '../../src/modules/connectors/devto/devto-people.ts';
import type { DevtoArticle, DevtoComment } from '../../src/modules/connectors/devto/devto.schemas.ts';
import { ActivityPushBody, UserPushBody } from '../../src/modules/ingestion/index.ts';
import { startDevtoStandIn, type DevtoStandIn } from '../stand-ins/devto-api.ts';

const kind = devtoConnector;
const NOW = new Date('2026-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const KEY = 'devtoKey0123456789abcdef';
const checkActivity = compileBodyValidator(ActivityPushBody);
const checkUser = compileBodyValidator(UserPushBody);
const settings: DevtoSettings = { tags: ['hearth'], apiUrl: 'https://community.example.org/api' };

function valid(translation: Translation): Translation {
  for (const activity of translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  for (const user of translation.users) expect(checkUser(user), JSON.stringify(checkUser.errors)).toBe(true);
  return translation;
}

const alice = {
  name: 'Alice Liddell',
  username: 'alice',
  twitter_username: 'alice_tw',
  github_username: 'alice-gh',
  user_id: 11,
  website_url: 'https://github.com/not-her-identity',
  profile_image: '/uploads/user/profile_image/11/a.jpeg',
  profile_image_90: '/uploads/user/profile_image/11/a90.jpeg',
};
const bob = {
  name: 'Bob',
  username: 'bob',
  twitter_username: null,
  github_username: null,
  website_url: null,
  profile_image: 'https://cdn.example.org/bob.png',
};

const article: DevtoArticle = {
  type_of: 'article',
  id: 1544,
  title: 'The Line of Beauty',
  description: 'A summary of the article',
  url: 'https://community.example.org/alice/the-line-of-beauty-39d8',
  published_at: '2026-01-11T16:00:22Z',
  published_timestamp: '2026-01-11T16:00:22Z',
  comments_count: 4,
  tag_list: ['hearth'],
  user: alice,
};

describe('the DEV connector: translation', () => {
  it("makes an article by its author, with DEV's handles and no website identity", () => {
    const activity = articleActivity(article, settings, '#hearth');
    expect(activity).toEqual({
      id: 'article:1544',
      activityType: 'devto_article',
      user: {
        id: 'alice',
        username: 'alice',
        fullName: 'Alice Liddell',
        avatarUrl: 'https://community.example.org/uploads/user/profile_image/11/a.jpeg',
        github: 'alice-gh',
        twitter: 'alice_tw',
        externalProfiles: [{ name: 'DEV', url: 'https://community.example.org/alice' }],
      },
      activityTitle: 'The Line of Beauty',
      content: { type: 'text', value: 'A summary of the article' },
      timestamp: '2026-01-11T16:00:22Z',
      url: 'https://community.example.org/alice/the-line-of-beauty-39d8',
      parentActivity: null,
      subSource: '#hearth',
    });
    valid({ users: [], activities: [activity], skipped: [] });
    expect(JSON.stringify(activity)).not.toContain('not-her-identity');
    // A person without handles has none; an absolute avatar is kept as it is.
    expect(personOf(bob, settings)).toEqual({
      id: 'bob',
      username: 'bob',
      fullName: 'Bob',
      avatarUrl: 'https://cdn.example.org/bob.png',
      externalProfiles: [{ name: 'DEV', url: 'https://community.example.org/bob' }],
    });
  });

  it('threads comments under the article or the comment they answer; deleted and hidden ones are skipped, their replies kept', () => {
    const comments: DevtoComment[] = [
      {
        type_of: 'comment',
        id_code: '1a',
        created_at: '2026-01-12T09:00:00Z',
        body_html: '<p>Great &amp; <em>useful</em> &#8212; thanks!</p>\n\n',
        user: bob,
        children: [{ type_of: 'comment', id_code: '1b', created_at: '2026-01-12T10:00:00Z', body_html: '<p>Glad it helped</p>', user: alice, children: [] }],
      },
      {
        type_of: 'comment',
        id_code: '1c',
        created_at: '2026-01-12T11:00:00Z',
        body_html: '<p>[deleted]</p>',
        user: {},
        children: [
          { type_of: 'comment', id_code: '1d', created_at: '2026-01-12T12:00:00Z', body_html: '<p>Answering a deleted one</p>', user: bob, children: [] },
        ],
      },
      { type_of: 'comment', id_code: '1e', created_at: '2026-01-12T13:00:00Z', body_html: '<p>[hidden by post author]</p>', user: {}, children: [] },
    ];
    const translation = emptyTranslation();
    expect(translateComments(article, comments, settings, '#hearth', translation)).toBe(5);
    valid(translation);
    expect(translation.activities.map((one) => [one.id, one.activityType, one.user.id, one.parentActivity?.id, one.timestamp])).toEqual([
      ['comment:1544:1a', 'devto_comment', 'bob', 'article:1544', '2026-01-12T09:00:00Z'],
      ['comment:1544:1b', 'devto_comment', 'alice', 'comment:1544:1a', '2026-01-12T10:00:00Z'],
      ['comment:1544:1d', 'devto_comment', 'bob', 'article:1544', '2026-01-12T12:00:00Z'],
    ]);
    expect(translation.activities[0]).toMatchObject({
      activityTitle: 'The Line of Beauty',
      content: { type: 'text', value: 'Great & useful — thanks!' },
      url: article.url,
      subSource: '#hearth',
      parentActivity: { id: 'article:1544', activityType: 'devto_article' },
    });
    expect(translation.activities[1]!.parentActivity).toEqual({ id: 'comment:1544:1a', activityType: 'devto_comment' });
    expect(translation.skipped).toEqual([
      "comment 1c on article 1544: deleted, or hidden by the article's author (no author given)",
      "comment 1e on article 1544: deleted, or hidden by the article's author (no author given)",
    ]);
  });

  it('says why an article is left out', () => {
    expect(articleSkipReason(article)).toBeNull();
    expect(articleSkipReason({ ...article, user: {} })).toBe('article 1544: no author');
    expect(articleSkipReason({ ...article, published_at: null, published_timestamp: null })).toBe('article 1544: not published');
    expect(articleSkipReason({ ...article, id: 0 })).toBe('an article without an ID');
  });

  it("reads a comment's HTML as text", () => {
    expect(textOfHtml('<p>a<br>b</p><pre><code>x &lt; y</code></pre>')).toBe('a\nb\nx < y');
    expect(textOfHtml('<p>&#x1F600; &quot;q&quot; &bogus;</p>')).toBe('😀 "q" &bogus;');
    expect(textOfHtml('<p> </p>')).toBeNull();
    expect(textOfHtml(null)).toBeNull();
  });
});

describe('the DEV connector against the stand-in', () => {
  let dev: DevtoStandIn;
  const clock = new ManualClock(NOW.toISOString());
  const access = (fetcher: typeof fetch = globalThis.fetch): PlatformAccess => ({
    fetch: fetcher,
    now: () => clock.now(),
    signal: new AbortController().signal,
    cache: new Map(),
  });
  const secrets: DevtoSecrets = {};

  /** Every page of a stream from `checkpoint` to its end. */
  async function walk(stream: string, checkpoint: JsonValue | null, given: DevtoSettings, keys: DevtoSecrets = secrets) {
    const pages: StreamPage[] = [];
    for (let at = checkpoint; ;) {
      expect(pages.length).toBeLessThan(20);
      const page = await kind.page(stream, at, given, keys, access());
      valid(page.translation);
      pages.push(page);
      at = page.checkpoint;
      if (page.done) return { pages, checkpoint: at, activities: pages.flatMap((one) => one.translation.activities) };
    }
  }
  const listRequests = (from: number, pattern: RegExp) =>
    dev.requests
      .slice(from)
      .map((request) => request.path)
      .filter((path) => pattern.test(path));

  beforeAll(async () => {
    dev = await startDevtoStandIn({
      users: [
        {
          username: 'alice',
          name: 'Alice Liddell',
          github: 'alice-gh',
          twitter: 'alice_tw',
          website: 'https://alice.example',
          summary: 'Writes',
          location: 'Oxford',
        },
        { username: 'bob', name: 'Bob Builder' },
      ],
      organizations: [{ username: 'acme', name: 'Acme' }],
      apiKeys: [{ key: KEY, username: 'alice' }],
    });
  });
  afterAll(() => dev.stop());

  it("walks an organization's articles by page with their comments, then reads only what is new and the window's comments", async () => {
    const stand: DevtoSettings = { organizations: ['acme'], apiUrl: dev.url, commentsWindowDays: 30 };
    // 230 articles: three pages of 100, newest first; every tenth has a comment with a reply.
    const start = NOW.getTime() - 120 * DAY;
    const published = Array.from({ length: 230 }, (_, i) =>
      dev.publish({
        title: `Acme ${i}`,
        username: i % 2 ? 'alice' : 'bob',
        organization: 'acme',
        tags: ['acme'],
        publishedAt: new Date(start + i * 12 * 3_600_000).toISOString(),
      }),
    );
    for (const one of published.filter((_, i) => i % 10 === 0)) {
      const first = dev.comment(one.id, { username: 'bob', body: 'first', createdAt: new Date(Date.parse(one.publishedAt) + 60_000).toISOString() });
      dev.comment(one.id, { username: 'alice', body: 'reply', parent: first.idCode, createdAt: new Date(Date.parse(one.publishedAt) + 120_000).toISOString() });
    }
    const from = dev.requests.length;
    const backfill = await walk('organization:acme', null, stand);
    expect(backfill.pages.map((page) => page.done)).toEqual([false, false, true]);
    expect(backfill.pages.map((page) => page.records)).toEqual([100 + 20, 100 + 20, 30 + 6]);
    expect(backfill.activities.filter((one) => one.activityType === 'devto_article')).toHaveLength(230);
    expect(backfill.activities.filter((one) => one.activityType === 'devto_comment')).toHaveLength(46);
    expect(new Set(backfill.activities.map((one) => one.subSource))).toEqual(new Set(['acme']));
    expect(listRequests(from, /^\/organizations\//)).toEqual([1, 2, 3].map((page) => `/organizations/acme/articles?page=${page}&per_page=100`));
    // Comments are asked for only where the list counts some.
    expect(listRequests(from, /^\/comments/)).toHaveLength(23);
    expect(dev.requests.slice(from).every((request) => request.accept === 'application/vnd.forem.api-v1+json' && !request.withKey)).toBe(true);

    // Later: a new article with a comment, a comment on an article of the window (10 days old), and one on an
    // article older than the window (60 days), which is not read again.
    const fresh = dev.publish({
      title: 'Acme new',
      username: 'alice',
      organization: 'acme',
      tags: ['acme'],
      publishedAt: new Date(NOW.getTime() + 3_600_000).toISOString(),
    });
    clock.advance(2 * 3_600_000);
    dev.comment(fresh.id, { username: 'bob', body: 'on the new one' });
    const recent = published.find((one) => Date.parse(one.publishedAt) > clock.now().getTime() - 10 * DAY)!;
    const lateOnRecent = dev.comment(recent.id, { username: 'bob', body: 'late, within the window', createdAt: clock.now().toISOString() });
    const old = published.find((one) => Date.parse(one.publishedAt) < clock.now().getTime() - 60 * DAY)!;
    const lateOnOld = dev.comment(old.id, { username: 'bob', body: 'late, too old', createdAt: clock.now().toISOString() });
    const again = dev.requests.length;
    const next = await walk('organization:acme', backfill.checkpoint, stand);
    expect(next.pages).toHaveLength(1);
    const ids = next.activities.map((one) => one.id);
    expect(ids).toContain(`article:${fresh.id}`);
    expect(ids).toContain(`comment:${recent.id}:${lateOnRecent.idCode}`);
    expect(ids).not.toContain(`comment:${old.id}:${lateOnOld.idCode}`);
    // Besides the new one, the articles read again are those of the window.
    const windowStart = clock.now().getTime() - 30 * DAY;
    const reread = next.activities.filter((one) => one.activityType === 'devto_article' && one.id !== `article:${fresh.id}`);
    expect(reread.length).toBe(published.filter((one) => Date.parse(one.publishedAt) >= windowStart).length);
    expect(reread.every((one) => Date.parse(one.timestamp!) >= windowStart)).toBe(true);
    // New records: the article, its comment and the late comment on the recent article.
    expect(next.pages[0]!.records).toBe(3);
    expect(listRequests(again, /^\/organizations\//)).toEqual(['/organizations/acme/articles?page=1&per_page=100']);

    // With no window, only the new articles are read.
    const quiet = await walk('organization:acme', next.checkpoint, { ...stand, commentsWindowDays: 0 });
    expect(quiet.activities).toEqual([]);
  });

  it("walks a tag's articles, which come by popularity, and later stops after a page with nothing recent", async () => {
    const stand: DevtoSettings = { tags: ['rust'], apiUrl: dev.url };
    const start = NOW.getTime() - 400 * DAY;
    const old = Array.from({ length: 350 }, (_, i) =>
      dev.publish({ title: `Rust ${i}`, username: 'bob', tags: ['rust'], publishedAt: new Date(start + i * DAY).toISOString(), reactions: i === 0 ? 650 : 0 }),
    );
    const from = dev.requests.length;
    const backfill = await walk('tag:rust', null, stand);
    expect(backfill.pages.map((page) => page.done)).toEqual([false, false, false, true]);
    expect(backfill.activities).toHaveLength(350);
    // The oldest, much liked, comes before newer ones: the list is not by date.
    const order = backfill.activities.map((one) => one.id);
    expect(order.indexOf(`article:${old[0]!.id}`)).toBeLessThan(order.indexOf(`article:${old[10]!.id}`));
    expect(backfill.activities[0]).toMatchObject({ subSource: '#rust' });
    expect(listRequests(from, /^\/articles/)).toEqual([1, 2, 3, 4].map((page) => `/articles?tag=rust&page=${page}&per_page=100`));

    // 120 new articles: the next sync reads the first two pages (the second still has new ones), then a
    // third with nothing recent, and stops there, before the end of the list.
    const added = Array.from({ length: 120 }, (_, i) =>
      dev.publish({ title: `Rust new ${i}`, username: 'alice', tags: ['rust'], publishedAt: new Date(NOW.getTime() + i * 60_000).toISOString() }),
    );
    clock.set(new Date(NOW.getTime() + 3 * 3_600_000));
    const again = dev.requests.length;
    const next = await walk('tag:rust', backfill.checkpoint, stand);
    expect(listRequests(again, /^\/articles/)).toEqual([1, 2, 3].map((page) => `/articles?tag=rust&page=${page}&per_page=100`));
    expect(next.activities.map((one) => one.id).sort()).toEqual(added.map((one) => `article:${one.id}`).sort());
    expect(next.pages.reduce((sum, page) => sum + (page.records ?? 0), 0)).toBe(120);
    clock.set(NOW);
  });

  it('waits as a 429 says, a minute after a 5xx or an unreachable API', async () => {
    const stand: DevtoSettings = { tags: ['rust'], apiUrl: dev.url };
    dev.rateLimitOnce(45);
    const limited = await kind.page('tag:rust', null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect(limited).toBeInstanceOf(RateLimitWait);
    expect((limited as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 45_000));
    expect((limited as Error).message).toBe('DEV asked to slow down (429 on /articles)');

    dev.failNext(503, 1);
    const failing = await kind.page('tag:rust', null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect(failing).toBeInstanceOf(RateLimitWait);
    expect((failing as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 60_000));

    // A 429 without Retry-After: Forem's own answer says 30 seconds.
    const bare: typeof fetch = async () => new Response(JSON.stringify({ error: 'Rate limit reached, try again in 30 seconds', status: 429 }), { status: 429 });
    const waited = await kind.page('tag:rust', null, stand, secrets, access(bare)).catch((caught: unknown) => caught);
    expect((waited as RateLimitWait).until).toEqual(new Date(clock.now().getTime() + 30_000));

    const unreachable = await kind.page('tag:rust', null, { ...stand, apiUrl: 'http://127.0.0.1:9/api' }, secrets, access()).catch((caught: unknown) => caught);
    expect(unreachable).toBeInstanceOf(RateLimitWait);
    expect((unreachable as Error).message).toMatch(/^DEV could not be reached/);
  });

  it('fails on a refused key, or on a private community without one, never naming the key', async () => {
    const privateDev = await startDevtoStandIn({ users: [{ username: 'alice', name: 'Alice' }], private: true, apiKeys: [{ key: KEY, username: 'alice' }] });
    try {
      const stand: DevtoSettings = { tags: ['rust'], apiUrl: privateDev.url };
      const refused = await kind.page('tag:rust', null, stand, { apiKey: 'revoked-key-0000' }, access()).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(CredentialRejected);
      expect((refused as Error).message).toBe(
        "DEV refused the API key (401 on /articles). Replace it in the connector's secrets (Settings → Extensions → DEV Community API Keys).",
      );
      const without = await kind.page('tag:rust', null, stand, {}, access()).catch((caught: unknown) => caught);
      expect(without).toBeInstanceOf(CredentialRejected);
      expect((without as Error).message).toMatch(/private and wants an API key/);
      const taken = await kind.page('tag:rust', null, stand, { apiKey: KEY }, access());
      expect(taken.done).toBe(true);
      expect(privateDev.requests.at(-1)!.withKey).toBe(true);
    } finally {
      await privateDev.stop();
    }
    // On DEV, public reads take no key; the test asks whose the key is, and a refused one fails it.
    await expect(kind.test({ tags: ['rust'], apiUrl: dev.url }, { apiKey: 'revoked-key-0000' }, access())).rejects.toBeInstanceOf(CredentialRejected);
  });

  it('reads profiles by username, and tests the key, the tags and the organizations', async () => {
    const stand: DevtoSettings = { tags: ['rust', 'nothing'], organizations: ['acme'], apiUrl: dev.url };
    const people = await kind.profiles!(['alice', 'bob', 'gone_user', 'not a username'], stand, secrets, access());
    for (const person of people) expect(checkUser(person), JSON.stringify(checkUser.errors)).toBe(true);
    expect(people).toEqual([
      {
        id: 'alice',
        username: 'alice',
        fullName: 'Alice Liddell',
        avatarUrl: expect.stringMatching(new RegExp(`^${dev.site}/uploads/user/profile_image/\\d+/avatar\\.jpeg$`)),
        github: 'alice-gh',
        twitter: 'alice_tw',
        externalProfiles: [{ name: 'DEV', url: `${dev.site}/alice` }],
        bio: 'Writes',
        rawLocation: 'Oxford',
      },
      expect.objectContaining({ id: 'bob', username: 'bob', fullName: 'Bob Builder' }),
    ]);
    expect(people[1]).not.toHaveProperty('github');

    const message = await kind.test(stand, { apiKey: KEY }, access());
    expect(message).toMatch(
      /^DEV reached with the API key of 'alice'; tag #rust: 30 articles on the first page, the newest published \d{4}-\d\d-\d\d; tag #nothing: no published articles; organization acme: 30 articles on the first page, the newest published \d{4}-\d\d-\d\d$/,
    );
    expect(await kind.test({ tags: ['nothing'], apiUrl: dev.url }, {}, access())).toBe('DEV reached without an API key; tag #nothing: no published articles');
    await expect(kind.test({ organizations: ['nobody'], apiUrl: dev.url }, {}, access())).rejects.toThrow('DEV has no organization "nobody" (404)');
  });

  it("skips an article's comments when the article is gone by the time they are asked for", async () => {
    const stand: DevtoSettings = { tags: ['gone'], apiUrl: dev.url };
    const one = dev.publish({ title: 'Soon gone', username: 'alice', tags: ['gone'] });
    dev.comment(one.id, { username: 'bob', body: 'hello' });
    const unpublishing: typeof fetch = async (input, init) => {
      if (String(input).includes('/comments?')) dev.unpublish(one.id);
      return globalThis.fetch(input, init);
    };
    const page = await kind.page('tag:gone', null, stand, secrets, access(unpublishing));
    expect(page.translation.activities.map((activity) => activity.id)).toEqual([`article:${one.id}`]);
    expect(page.translation.skipped).toEqual([`the comments of article ${one.id}: the article is gone (404)`]);
    await expect(kind.page('stars:x', null, stand, secrets, access())).rejects.toThrow('the DEV connector has no stream "stars:x"');
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type PlatformAccess, type StreamPage, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { translateHit } from '../../src/modules/connectors/hackernews/hackernews-activities.ts';
import { INDEXING_OVERLAP_SECONDS } from '../../src/modules/connectors/hackernews/hackernews-backfill.ts';
import { budgetKey, HOURLY_BUDGET } from '../../src/modules/connectors/hackernews/hackernews-client.ts';
import { hackerNewsConnector, type HackerNewsSettings } from '../../src/modules/connectors/hackernews/hackernews-connector.ts';
import { HackerNewsSettingsSchema, type SearchHit } from '../../src/modules/connectors/hackernews/hackernews.schemas.ts';
import { ActivityPushBody, UserPushBody } from '../../src/modules/ingestion/index.ts';
import { startHackerNewsStandIn, type HackerNewsStandIn, type StandInItem } from '../stand-ins/hackernews-api.ts';

const kind = hackerNewsConnector;
const NOW = new Date('2026-02-01T00:00:00.000Z');
const checkActivity = compileBodyValidator(ActivityPushBody);
const checkUser = compileBodyValidator(UserPushBody);
const checkSettings = compileBodyValidator(HackerNewsSettingsSchema);
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function translated(hit: SearchHit): Translation {
  const translation: Translation = { users: [], activities: [], skipped: [] };
  translateHit(hit, translation);
  for (const activity of translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  return translation;
}

describe('the Hacker News connector: settings and records', () => {
  it('takes keywords, domains or both, and names what is wrong', () => {
    expect(checkSettings({ keywords: ['hearth'] })).toBe(true);
    expect(checkSettings({ domains: ['example.com'], backfillDays: 30, profiles: false })).toBe(true);
    expect(checkSettings({ keywords: ['hearth crm'], domains: ['docs.example.com'], apiUrl: 'http://127.0.0.1:9999/api/v1' })).toBe(true);
    expect(checkSettings({})).toBe(false);
    expect(checkSettings({ keywords: [] })).toBe(false);
    expect(checkSettings({ keywords: ['  '] })).toBe(false);
    expect(checkSettings({ domains: ['https://example.com'] })).toBe(false);
    expect(checkSettings({ domains: ['example.com/path'] })).toBe(false);
    expect(checkSettings({ keywords: ['hearth'], backfillDays: 0 })).toBe(false);
    expect(checkSettings({ keywords: ['hearth'], apiUrl: 'http://hn.example.com/api/v1' })).toBe(false);
    expect(checkSettings({ keywords: ['hearth'], token: 'x' })).toBe(false);
  });

  it('makes one stream per keyword and domain, the same words once', async () => {
    const settings = { keywords: ['Hearth', 'hearth ', 'open  source'], domains: ['Example.com'] } as HackerNewsSettings;
    const access = { now: () => NOW } as PlatformAccess;
    expect(await kind.streams(settings, {}, access)).toEqual(['keyword:hearth', 'keyword:open source', 'domain:example.com']);
  });

  it('makes a story, with its text as HTML or its link, at its item page', () => {
    const story = translated({
      objectID: '8863',
      author: 'dhouston',
      created_at: '2007-04-04T19:16:40.000Z',
      created_at_i: 1175714200,
      title: 'My YC app: Dropbox - Throw away your USB drive',
      url: 'http://www.getdropbox.com/u/2/screencast.html',
      story_text: null,
      comment_text: null,
      points: 111,
      num_comments: 71,
      _tags: ['story', 'author_dhouston', 'story_8863'],
    });
    expect(story).toEqual({
      users: [],
      skipped: [],
      activities: [
        {
          id: 'item:8863',
          activityType: 'hackernews_story',
          user: { id: 'dhouston', username: 'dhouston' },
          activityTitle: 'My YC app: Dropbox - Throw away your USB drive',
          content: { type: 'text', value: 'http://www.getdropbox.com/u/2/screencast.html' },
          timestamp: '2007-04-04T19:16:40.000Z',
          url: 'https://news.ycombinator.com/item?id=8863',
          parentActivity: null,
        },
      ],
    });
    const ask = translated({
      objectID: '121003',
      author: 'tel',
      created_at_i: 1203647620,
      title: 'Ask HN: The Arc Effect',
      url: null,
      story_text: '<i>or</i> HN: the Next Iteration<p>I get the impression...',
      _tags: ['story', 'ask_hn'],
    });
    expect(ask.activities[0]).toMatchObject({
      content: { type: 'html', value: '<i>or</i> HN: the Next Iteration<p>I get the impression...' },
      timestamp: '2008-02-22T02:33:40.000Z',
    });
  });

  it('makes a comment under its story, and a reply under its comment', () => {
    const onStory = translated({
      objectID: '8952',
      author: 'sama',
      created_at: '2007-04-05T03:33:43.000Z',
      created_at_i: 1175744023,
      comment_text: '<p>Great demo</p>',
      story_id: 8863,
      parent_id: 8863,
      story_title: 'My YC app: Dropbox - Throw away your USB drive',
      story_url: 'http://www.getdropbox.com/u/2/screencast.html',
      _tags: ['comment', 'author_sama', 'story_8863'],
    });
    expect(onStory.activities).toEqual([
      {
        id: 'item:8952',
        activityType: 'hackernews_comment',
        user: { id: 'sama', username: 'sama' },
        activityTitle: 'My YC app: Dropbox - Throw away your USB drive',
        content: { type: 'html', value: '<p>Great demo</p>' },
        timestamp: '2007-04-05T03:33:43.000Z',
        url: 'https://news.ycombinator.com/item?id=8952',
        parentActivity: { id: 'item:8863', activityType: 'hackernews_story' },
      },
    ]);
    const reply = translated({
      objectID: '9224',
      author: 'BrandonM',
      created_at_i: 1175800000,
      comment_text: 'You can already build such a system yourself quite trivially',
      story_id: 8863,
      parent_id: 8952,
      _tags: ['comment', 'author_BrandonM', 'story_8863'],
    });
    expect(reply.activities[0]).toMatchObject({ id: 'item:9224', parentActivity: { id: 'item:8952', activityType: 'hackernews_comment' } });
  });

  it('skips deleted items, other kinds and hits without an item ID, saying why', () => {
    const cases: [SearchHit, RegExp][] = [
      [{ objectID: '1001', author: null, created_at_i: 1, comment_text: '[deleted]', _tags: ['comment'] }, /item 1001: no author \(a deleted item\)/],
      [
        { objectID: '1002', author: 'pg', created_at_i: 1, title: 'Poll: which editor?', _tags: ['poll', 'author_pg'] },
        /item 1002: a poll, not a story or a comment/,
      ],
      [{ objectID: 'abc', author: 'pg', created_at_i: 1, title: 'x', _tags: ['story'] }, /a hit without an item ID/],
    ];
    for (const [hit, reason] of cases) {
      const translation = translated(hit);
      expect(translation.activities).toEqual([]);
      expect(translation.skipped.join('; ')).toMatch(reason);
    }
  });
});

describe('the Hacker News connector against the stand-in', () => {
  let hn: HackerNewsStandIn;
  const clock = new ManualClock(NOW.toISOString());
  let cache = new Map<string, unknown>();
  const access = (): PlatformAccess => ({ fetch: globalThis.fetch, now: () => clock.now(), signal: new AbortController().signal, cache });
  let settings: HackerNewsSettings;
  let tied: StandInItem[];
  let s2: StandInItem;
  let byName: StandInItem;
  const expected: string[] = [];

  beforeAll(async () => {
    hn = await startHackerNewsStandIn({
      maxHitsPerPage: 2,
      users: [
        { username: 'alice', about: '<p>Builds <a href="https://hearth.example.com">Hearth</a></p>', karma: 512 },
        { username: 'bob', about: '', karma: 3 },
      ],
    });
    settings = { keywords: ['hearth'], backfillDays: 30, apiUrl: hn.url };
    // Older than the 30 days the first sync reads.
    hn.story({ author: 'alice', title: 'Hearth, an early prototype', createdAt: seconds('2025-12-01T00:00:00Z') });
    const s1 = hn.story({
      author: 'alice',
      title: 'Show HN: Hearth, a community CRM',
      url: 'https://hearth.example.net/',
      createdAt: seconds('2026-01-10T00:00:00Z'),
    });
    // Found by its author's name, which is not a mention: read, and left out.
    byName = hn.story({ author: 'hearth', title: 'My weekend project', createdAt: seconds('2026-01-09T00:00:00Z') });
    // A search with Algolia's defaults would find these too (a typo away, a prefix).
    hn.story({ author: 'bob', title: 'Health tips for founders', createdAt: seconds('2026-01-10T00:30:00Z') });
    hn.story({ author: 'bob', title: 'Hearthstone decks', createdAt: seconds('2026-01-10T00:40:00Z') });
    const c1 = hn.comment({ author: 'bob', parent: s1, text: '<p>Hearth looks nice</p>', createdAt: seconds('2026-01-10T01:00:00Z') });
    const c2 = hn.comment({ author: 'carol', parent: c1, text: '<p>Agreed, and hearth is self-hosted</p>', createdAt: seconds('2026-01-10T02:00:00Z') });
    // Three comments in one second: more than a page of the stand-in holds.
    tied = ['dave', 'erin', 'frank'].map((author) =>
      hn.comment({ author, parent: s1, text: `${author} likes hearth`, createdAt: seconds('2026-01-11T00:00:00Z') }),
    );
    s2 = hn.story({ author: 'alice', title: 'Ask HN: Anyone using Hearth?', text: '<p>Is it any good?</p>', createdAt: seconds('2026-01-12T00:00:00Z') });
    hn.story({ author: 'bob', title: 'Rust 2.0 released', url: 'https://rust.example.org/', createdAt: seconds('2026-01-12T01:00:00Z') });
    expected.push(...[s1, c1, c2, ...tied, s2].map((item) => `item:${item.id}`));
  });
  afterAll(() => hn.stop());
  afterEach(() => {
    cache = new Map();
    clock.set(NOW);
  });

  async function walk(stream: string, from: JsonValue | null, given = settings): Promise<{ pages: StreamPage[]; checkpoint: JsonValue }> {
    const pages: StreamPage[] = [];
    let checkpoint = from;
    for (;;) {
      expect(pages.length).toBeLessThan(20);
      const page = await kind.page(stream, checkpoint, given, {}, access());
      if (!page.done) expect(page.checkpoint, 'a page that is not the last leads somewhere else').not.toEqual(checkpoint);
      pages.push(page);
      checkpoint = page.checkpoint;
      if (page.done) return { pages, checkpoint };
    }
  }
  const searches = () => hn.requests.filter((request) => request.startsWith('search_by_date?'));

  it('walks back by time windows, never deep pages, reading every item once, a crowded second included', async () => {
    const asked = searches().length;
    const { pages, checkpoint } = await walk('keyword:hearth', null);
    const ids = pages.flatMap((page) => page.translation.activities.map((activity) => activity.id));
    expect(ids.sort()).toEqual([...expected].sort());
    expect(pages.flatMap((page) => page.translation.skipped)).toEqual([`item ${byName.id}: its title, text and link do not have every word of "hearth"`]);
    // Every hit read counts, the one left out too: so the records meet Algolia's total.
    expect(pages.reduce((sum, page) => sum + (page.records ?? 0), 0)).toBe(expected.length + 1);
    expect(pages[0]!.total).toBe(expected.length + 1);
    expect(pages.slice(1).every((page) => page.total === undefined)).toBe(true);
    const made = searches().slice(asked);
    expect(made).toHaveLength(pages.length);
    const from = seconds('2026-01-02T00:00:00Z');
    const asks = 'search_by_date?query=hearth&tags=(story,comment)&queryType=prefixNone&typoTolerance=false';
    expect(made[0]).toBe(`${asks}&numericFilters=created_at_i>=${from}&hitsPerPage=500&page=0`);
    expect(made[1]).toBe(`${asks}&numericFilters=created_at_i>=${from},created_at_i<=${seconds('2026-01-11T00:00:00Z')}&hitsPerPage=500&page=0`);
    // The crowded second, read by pages of its own.
    expect(made).toContain(`${asks}&numericFilters=created_at_i=${tied[0]!.createdAt}&hitsPerPage=500&page=1`);
    // Algolia's defaults would have found the typo and the prefix.
    const loose = (await (await fetch(`${hn.url}/search_by_date?query=hearth&numericFilters=created_at_i>=${from}`)).json()) as { nbHits: number };
    expect(loose.nbHits).toBe(expected.length + 3);
    expect(made.every((request) => /&page=[01]$/.test(request))).toBe(true);
    expect(checkpoint).toMatchObject({ mark: seconds('2026-01-12T00:00:00Z'), next: seconds('2026-01-12T00:00:00Z') - INDEXING_OVERLAP_SECONDS });

    // A later sync reads from just before the newest item read: what is new, counted once.
    const later = hn.comment({ author: 'grace', parent: tied[0]!, text: 'hearth again', createdAt: seconds('2026-01-20T00:00:00Z') });
    clock.set('2026-01-20T00:05:00Z');
    const before = searches().length;
    const next = await walk('keyword:hearth', checkpoint);
    expect(searches()[before]).toContain(`numericFilters=created_at_i>=${seconds('2026-01-12T00:00:00Z') - INDEXING_OVERLAP_SECONDS}&`);
    expect(next.pages.flatMap((page) => page.translation.activities.map((activity) => activity.id))).toEqual([`item:${later.id}`, `item:${s2.id}`]);
    expect(next.pages.reduce((sum, page) => sum + (page.records ?? 0), 0)).toBe(1);
    expect(next.pages.every((page) => page.total === undefined)).toBe(true);
    const quiet = await walk('keyword:hearth', next.checkpoint);
    expect(quiet.pages.flatMap((page) => page.translation.activities.map((activity) => activity.id))).toEqual([`item:${later.id}`]);
    expect(quiet.pages.reduce((sum, page) => sum + (page.records ?? 0), 0)).toBe(0);
  });

  it("follows a domain's stories: its host and subdomains, not a link that only names it", async () => {
    const on = hn.story({ author: 'bob', title: 'Launch notes', url: 'https://example.com/launch', createdAt: seconds('2026-01-15T00:00:00Z') });
    const sub = hn.story({ author: 'carol', title: 'A blog post', url: 'https://blog.example.com/post', createdAt: seconds('2026-01-15T01:00:00Z') });
    const elsewhere = hn.story({ author: 'dave', title: 'A review', url: 'https://other.org/review/example.com', createdAt: seconds('2026-01-15T02:00:00Z') });
    hn.story({ author: 'erin', title: 'Not it', url: 'https://notexample.com/', createdAt: seconds('2026-01-15T03:00:00Z') });
    const asked = searches().length;
    const { pages } = await walk('domain:example.com', null, { domains: ['example.com'], backfillDays: 30, apiUrl: hn.url });
    expect(searches()[asked]).toMatch(
      /^search_by_date\?query=example\.com&tags=story&restrictSearchableAttributes=url&queryType=prefixNone&typoTolerance=false&numericFilters=created_at_i>=\d+&/,
    );
    expect(pages.flatMap((page) => page.translation.activities.map((activity) => activity.id)).sort()).toEqual([`item:${on.id}`, `item:${sub.id}`].sort());
    expect(pages.flatMap((page) => page.translation.skipped)).toEqual([
      `item ${elsewhere.id}: its link's host other.org is not example.com or a subdomain of it`,
    ]);
  });

  it('waits on a 429 as Retry-After says, or an hour; retries a 5xx a little, then waits', async () => {
    hn.rateLimitOnce(30);
    const limited = await kind.page('keyword:hearth', null, settings, {}, access()).catch((caught: unknown) => caught);
    expect(limited).toBeInstanceOf(RateLimitWait);
    expect((limited as RateLimitWait).until).toEqual(new Date(NOW.getTime() + 30_000));
    expect((limited as Error).message).toBe('Hacker News Search asked to slow down (429 on /search_by_date)');
    hn.rateLimitOnce(null);
    const unsaid = await kind.page('keyword:hearth', null, settings, {}, access()).catch((caught: unknown) => caught);
    expect((unsaid as RateLimitWait).until).toEqual(new Date(NOW.getTime() + 60 * 60_000));

    hn.failNext(2, 502);
    const asked = hn.requests.length;
    expect((await kind.page('keyword:hearth', null, settings, {}, access())).translation.activities.length).toBeGreaterThan(0);
    expect(hn.requests.length - asked).toBe(3);
    hn.failNext(3, 503);
    const down = await kind.page('keyword:hearth', null, settings, {}, access()).catch((caught: unknown) => caught);
    expect(down).toBeInstanceOf(RateLimitWait);
    expect((down as RateLimitWait).until).toEqual(new Date(NOW.getTime() + 60_000));
    expect((down as Error).message).toBe('Hacker News Search answered 503 3 times for /search_by_date; trying again later');
  });

  it('keeps under the hourly limit itself: past its budget it waits, asking nothing', async () => {
    const start = NOW.getTime() - 50 * 60_000;
    cache.set(
      budgetKey(hn.url),
      Array.from({ length: HOURLY_BUDGET }, (_, i) => start + i),
    );
    const asked = hn.requests.length;
    const waited = await kind.page('keyword:hearth', null, settings, {}, access()).catch((caught: unknown) => caught);
    expect(waited).toBeInstanceOf(RateLimitWait);
    expect((waited as RateLimitWait).until).toEqual(new Date(start + 60 * 60_000));
    expect(hn.requests.length).toBe(asked);
    // Ten minutes later the oldest requests are an hour old: it goes on.
    clock.advance(10 * 60_000 + 1000);
    await expect(kind.page('keyword:hearth', null, settings, {}, access())).resolves.toMatchObject({ done: false });
  });

  it('fails when its address is refused, and says what is wrong with a bad request', async () => {
    hn.block(true);
    const refused = await kind.page('keyword:hearth', null, settings, {}, access()).catch((caught: unknown) => caught);
    hn.block(false);
    expect(refused).toBeInstanceOf(CredentialRejected);
    expect((refused as Error).message).toMatch(/^Hacker News Search refused this server's requests \(403: Your IP has been blocked\)/);
    await expect(kind.page('keyword:hearth', null, settings, {}, access())).resolves.toBeDefined();
    await expect(kind.page('nothing:x', null, settings, {}, access())).rejects.toThrow('the Hacker News connector has no stream "nothing:x"');
  });

  it('reads profiles (the about text as bio), skipping unknown people, and tests the settings', async () => {
    const people = await kind.profiles!(['alice', 'bob', 'nobody', 'not a name'], settings, {}, access());
    for (const person of people) expect(checkUser(person), JSON.stringify(checkUser.errors)).toBe(true);
    expect(people).toEqual([{ id: 'alice', username: 'alice', bio: '<p>Builds <a href="https://hearth.example.com">Hearth</a></p>' }]);
    expect(hn.requests.filter((request) => request.startsWith('users/'))).toEqual(['users/alice', 'users/bob', 'users/nobody']);
    const asked = hn.requests.length;
    expect(await kind.profiles!(['alice'], { ...settings, profiles: false }, {}, access())).toEqual([]);
    expect(hn.requests.length).toBe(asked);

    expect(await kind.test({ ...settings, domains: ['example.com'] }, {}, access())).toBe(
      `Hacker News Search reached; in the last 30 days: "hearth": ${expected.length + 2} stories and comments; domain example.com: up to 3 stories`,
    );
  });
});

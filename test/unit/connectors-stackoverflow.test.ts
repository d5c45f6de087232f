import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { compileBodyValidator } from '../../src/core/validation.ts';
import type { JsonValue } from '../../src/db/schema.ts';
import { CredentialRejected, RateLimitWait, type PlatformAccess, type StreamPage, type Translation } from '../../src/modules/connectors/connector-kind.ts';
import { platformAccess } from '../../src/modules/connectors/platform-access.ts';
import {
  bodyText,
  emptyTranslation,
  threadOf,
  translateAnswer,
  translateComment,
  translateQuestion,
} from '../../src/modules/connectors/stackoverflow/stackoverflow-activities.ts';
import { decompress } from '../../src/modules/connectors/stackoverflow/stackoverflow-client.ts';
import { profilePush } from '../../src/modules/connectors/stackoverflow/stackoverflow-people.ts';
import {
  stackoverflowConnector,
  type StackOverflowSecrets,
  type StackOverflowSettings,
} from '../../src/modules/connectors/stackoverflow/stackoverflow-connector.ts';
import type { Answer, Comment, Question } from '../../src/modules/connectors/stackoverflow/stackoverflow.schemas.ts';
import { ActivityPushBody, UserPushBody } from '../../src/modules/ingestion/index.ts';
import { readPushedPerson, type ApiUser } from '../../src/modules/ingestion/pushed-person.ts';
import { startStackExchangeStandIn, type StackExchangeStandIn } from '../stand-ins/stackexchange-api.ts';

const kind = stackoverflowConnector;
const KEY = 'U4DMV*8nvpm3EOpvf69Rxw((';
const NOW = new Date('2026-01-15T12:00:00.000Z');
const checkActivity = compileBodyValidator(ActivityPushBody);
const checkUser = compileBodyValidator(UserPushBody);

/*
 * Records shaped as the API documents them (https://api.stackexchange.com/docs/types/question, /answer,
 * /comment, /shallow-user): HTML-escaped strings, Unix-second dates, `withbody` bodies.
 */
const jon = {
  account_id: 11683,
  reputation: 1_500_000,
  user_id: 22656,
  user_type: 'registered',
  profile_image: 'https://www.gravatar.com/avatar/6d8ebb117e8d83d74ea95fbdd0f87e13?s=256&d=identicon&r=PG',
  display_name: 'Jon Skeet',
  link: 'https://stackoverflow.com/users/22656/jon-skeet',
};
const zoe = { ...jon, user_id: 1001, account_id: 3014, display_name: 'Zo&#235; O&#39;Brien &amp; co', link: 'https://stackoverflow.com/users/1001/zoe' };
const question: Question = {
  tags: ['c#', 'asp.net-core'],
  owner: zoe,
  is_answered: true,
  answer_count: 2,
  accepted_answer_id: 2002,
  last_activity_date: 1_767_225_900,
  creation_date: 1_767_225_600,
  question_id: 1001,
  link: 'https://stackoverflow.com/questions/1001/why-does-x-and-y-fail',
  title: 'Why does &quot;x &amp; y&quot; fail in &lt;T&gt;?',
  body: '<p>It fails:</p>\n<pre><code>var x = a &amp;&amp; b;\nreturn x;\n</code></pre>\n<p>Why?</p>\n',
};
const settings: StackOverflowSettings = { tags: ['asp.net-core', 'c#'] };

function translated(run: (into: Translation) => void): Translation {
  const into = emptyTranslation();
  run(into);
  for (const activity of into.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
  return into;
}

describe('the Stack Overflow connector: translation', () => {
  const thread = threadOf(question, settings, 'asp.net-core');

  it('makes a question with its decoded title, its body as text, the author and the followed tag it names first', () => {
    const { activities, skipped } = translated((into) => translateQuestion(thread, into));
    expect(skipped).toEqual([]);
    expect(activities).toEqual([
      {
        id: 'question:1001',
        activityType: 'stackoverflow_question',
        user: { id: '1001', username: "Zoë O'Brien & co", avatarUrl: jon.profile_image },
        activityTitle: 'Why does "x & y" fail in <T>?',
        content: { type: 'text', value: 'It fails:\n\nvar x = a && b;\nreturn x;\n\nWhy?' },
        timestamp: '2026-01-01T00:00:00.000Z',
        url: question.link,
        parentActivity: null,
        // c# is the question's first tag, and followed: every stream that reads it names it so.
        subSource: 'c#',
      },
    ]);
  });

  it('makes an answer under its question, and the accepted answer for its author', () => {
    const accepted: Answer = {
      owner: jon,
      is_accepted: true,
      last_activity_date: 1_767_225_900,
      creation_date: 1_767_225_900,
      answer_id: 2002,
      question_id: 1001,
      body: '<p>Use <code>&amp;</code>.</p>',
    };
    const { activities } = translated((into) => translateAnswer(accepted, thread, into));
    expect(activities).toEqual([
      {
        id: 'answer:2002',
        activityType: 'stackoverflow_answer',
        user: { id: '22656', username: 'Jon Skeet', avatarUrl: jon.profile_image },
        activityTitle: 'Why does "x & y" fail in <T>?',
        content: { type: 'text', value: 'Use &.' },
        timestamp: '2026-01-01T00:05:00.000Z',
        url: 'https://stackoverflow.com/a/2002',
        parentActivity: { id: 'question:1001', activityType: 'stackoverflow_question' },
        subSource: 'c#',
      },
      {
        id: 'accepted:2002',
        activityType: 'stackoverflow_accepted_answer',
        user: { id: '22656', username: 'Jon Skeet', avatarUrl: jon.profile_image },
        activityTitle: 'Why does "x & y" fail in <T>?',
        timestamp: '2026-01-01T00:05:00.000Z',
        url: 'https://stackoverflow.com/a/2002',
        parentActivity: { id: 'question:1001', activityType: 'stackoverflow_question' },
        subSource: 'c#',
      },
    ]);
    // The question's accepted_answer_id says it too, when the answer's is_accepted is left out.
    const { is_accepted: _accepted, ...plain } = accepted;
    expect(translated((into) => translateAnswer(plain, thread, into)).activities.map((activity) => activity.id)).toEqual(['answer:2002', 'accepted:2002']);
    const other = translated((into) => translateAnswer({ ...plain, answer_id: 2003 }, thread, into));
    expect(other.activities.map((activity) => activity.id)).toEqual(['answer:2003']);
  });

  it('makes comments under the question or the answer they were made on', () => {
    const comment: Comment = { owner: jon, creation_date: 1_767_225_960, post_id: 1001, comment_id: 3003, body: 'Which version &amp; runtime?' };
    const onQuestion = translated((into) => translateComment(comment, thread, false, into)).activities[0];
    expect(onQuestion).toEqual({
      id: 'comment:3003',
      activityType: 'stackoverflow_comment',
      user: { id: '22656', username: 'Jon Skeet', avatarUrl: jon.profile_image },
      activityTitle: 'Why does "x & y" fail in <T>?',
      content: { type: 'text', value: 'Which version & runtime?' },
      timestamp: '2026-01-01T00:06:00.000Z',
      url: `${question.link}#comment3003_1001`,
      parentActivity: { id: 'question:1001', activityType: 'stackoverflow_question' },
      subSource: 'c#',
    });
    const onAnswer = translated((into) => translateComment({ ...comment, post_id: 2002 }, thread, true, into)).activities[0];
    expect(onAnswer?.parentActivity).toEqual({ id: 'answer:2002', activityType: 'stackoverflow_answer' });
  });

  it('skips posts of deleted or anonymous users and of the Community user, saying why', () => {
    const deleted = { user_type: 'does_not_exist', display_name: 'user12345' };
    const community = { ...jon, user_id: -1, account_id: -1, user_type: 'moderator', display_name: 'Community' };
    const skipped = translated((into) => {
      translateQuestion(threadOf({ ...question, owner: deleted }, settings, 'c#'), into);
      translateAnswer({ owner: community, creation_date: 1, answer_id: 5, question_id: 1001, is_accepted: true }, thread, into);
      translateComment({ creation_date: 1, post_id: 1001, comment_id: 6 }, thread, false, into);
    });
    expect(skipped.activities).toEqual([]);
    expect(skipped.skipped).toEqual([
      'question 1001: by a deleted or anonymous user (user_type does_not_exist, "user12345")',
      "answer 5: by the site's Community user (-1), not a person",
      'comment 6: no author',
    ]);
  });

  it('keeps a profile website only where it makes no identity: a GitHub page is not a GitHub account', () => {
    const profile = { ...zoe, location: 'S&#227;o Paulo, Brazil', website_url: 'https://zoe.example.org' };
    const person = profilePush(profile)!;
    expect(checkUser(person), JSON.stringify(checkUser.errors)).toBe(true);
    expect(person).toEqual({
      id: '1001',
      username: "Zoë O'Brien & co",
      avatarUrl: jon.profile_image,
      externalProfiles: [
        { url: 'https://stackoverflow.com/users/1001/zoe', name: 'stackoverflow.com' },
        { url: 'https://zoe.example.org/', name: 'website' },
      ],
      rawLocation: 'São Paulo, Brazil',
    });
    for (const website of [
      'https://github.com/zoe',
      'http://www.github.com/zoe',
      'github.com/zoe',
      'https://x.com/zoe',
      'https://www.linkedin.com/in/zoe',
      'https://gist.github.com/zoe',
    ]) {
      const pushed = profilePush({ ...profile, website_url: website })!;
      expect(pushed.externalProfiles, website).toEqual([{ url: 'https://stackoverflow.com/users/1001/zoe', name: 'stackoverflow.com' }]);
      expect(readPushedPerson(pushed as ApiUser).identities, website).toEqual([]);
    }
    expect(readPushedPerson(person as ApiUser).identities).toEqual([]);
    // Where it would have gone, it would have made one.
    expect(readPushedPerson({ id: 1, externalProfiles: [{ url: 'https://github.com/zoe' }] }).identities).toEqual([
      expect.objectContaining({ type: 'github' }),
    ]);
    expect(profilePush({ user_type: 'does_not_exist', display_name: 'user1' })).toBeNull();
  });

  it('cuts long bodies, and reads the answer bytes however they were compressed', async () => {
    expect(bodyText(`<p>${'a'.repeat(6000)}</p>`)).toHaveLength(5000);
    expect(bodyText('<p></p>')).toBeNull();
    const json = Buffer.from('{"items":[],"has_more":false}');
    for (const [bytes, encoding] of [
      [gzipSync(json), 'gzip'],
      [gzipSync(json), null],
      [deflateSync(json), 'deflate'],
      [deflateRawSync(json), 'deflate'],
      [json, 'gzip'],
      [json, null],
    ] as const) {
      expect((await decompress(bytes, encoding)).toString(), String(encoding)).toBe(json.toString());
    }
  });
});

describe('the Stack Overflow connector against the stand-in', () => {
  const clock = new ManualClock(NOW.toISOString());
  let api: StackExchangeStandIn;
  let stand: StackOverflowSettings;
  const secrets: StackOverflowSecrets = { key: KEY };
  /** As the framework builds it: Hearth's outbound guard, which hands the compressed bytes over as they came. */
  const access = (cache = new Map<string, unknown>()): PlatformAccess =>
    platformAccess({ allowPrivateAddresses: true, signal: new AbortController().signal, now: () => clock.now(), cache });
  const questionRequests = () => api.requests.filter((request) => request.path.startsWith('/questions?'));

  /** Every page of a stream from `checkpoint` until it is done. */
  async function walk(stream: string, checkpoint: JsonValue | null, given = stand, cache = new Map<string, unknown>()) {
    const pages: StreamPage[] = [];
    let at = checkpoint;
    for (;;) {
      expect(pages.length).toBeLessThan(20);
      const page = await kind.page(stream, at, given, secrets, access(cache));
      for (const activity of page.translation.activities) expect(checkActivity(activity), JSON.stringify(checkActivity.errors)).toBe(true);
      pages.push(page);
      at = page.checkpoint;
      if (page.done)
        return {
          pages,
          checkpoint: at,
          activities: pages.flatMap((one) => one.translation.activities),
          records: pages.reduce((sum, one) => sum + (one.records ?? 0), 0),
        };
    }
  }

  beforeAll(async () => {
    api = await startStackExchangeStandIn({
      key: KEY,
      now: () => clock.now(),
      history: { questions: 250, tags: ['hearth', 'hearth-api'], people: 20, seed: 7, start: new Date('2025-06-01T00:00:00Z'), spacingSeconds: 3_600 },
    });
    stand = { tags: ['hearth'], apiUrl: api.url };
  });
  afterAll(() => api.stop());
  beforeEach(() => {
    api.requests.length = 0;
    clock.set(NOW);
    api.setQuota(10_000);
  });

  it('backfills a tag by creation date, 100 questions a page with their answers and comments, then catches up by activity', async () => {
    const expected = api.counts(['hearth']);
    const { pages, activities, records, checkpoint } = await walk('tag:hearth', null);
    // 125 questions: two creation pages, then the activity walk from the backfill's start, which finds nothing.
    expect(pages.map((page) => page.done)).toEqual([false, false, true]);
    const byType = (type: string) => activities.filter((activity) => activity.activityType === type).length;
    expect(byType('stackoverflow_question')).toBe(expected.questions);
    expect(byType('stackoverflow_answer')).toBe(expected.answers);
    expect(byType('stackoverflow_comment')).toBe(expected.comments);
    expect(byType('stackoverflow_accepted_answer')).toBe(expected.accepted);
    expect(new Set(activities.map((activity) => activity.id)).size).toBe(activities.length);
    expect(records).toBe(expected.questions + expected.answers + expected.comments);
    expect(pages.every((page) => page.total === null)).toBe(true);

    const asked = questionRequests().map((request) => new URLSearchParams(request.path.split('?')[1]));
    expect(asked.map((query) => [query.get('sort'), query.get('order'), query.get('tagged'), query.get('pagesize'), query.get('filter')])).toEqual([
      ['creation', 'asc', 'hearth', '100', 'withbody'],
      ['creation', 'asc', 'hearth', '100', 'withbody'],
      ['activity', 'asc', 'hearth', '100', 'withbody'],
    ]);
    // The first page from the beginning; the next from the newest creation date read, page 1 again.
    expect(asked[0]!.get('fromdate')).toBeNull();
    expect(Number(asked[1]!.get('fromdate'))).toBeGreaterThan(0);
    expect(asked[1]!.get('page')).toBe('1');
    // The activity walk starts ten minutes before the backfill started.
    expect(Number(asked[2]!.get('min'))).toBe(NOW.getTime() / 1000 - 600);
    // Answers and comments by batches of IDs, every request with the key and the site.
    expect(api.requests.some((request) => /^\/questions\/\d+(;\d+){50,}\/answers\?/.test(request.path))).toBe(true);
    expect(api.requests.some((request) => /^\/answers\/\d+(;\d+)+\/comments\?/.test(request.path))).toBe(true);
    expect(api.requests.every((request) => request.keyed && request.path.includes('site=stackoverflow'))).toBe(true);
    expect(checkpoint).toMatchObject({ walk: 'activity', quota: { max: 10_000 } });
  });

  it('goes on from a checkpoint without pushing again the questions read at its second', async () => {
    const first = await kind.page('tag:hearth', null, stand, secrets, access());
    const firstIds = new Set(first.translation.activities.map((activity) => activity.id));
    const saved = first.checkpoint as { from: number; seen: number[] };
    expect(saved.seen.length).toBeGreaterThan(0);
    const second = await kind.page('tag:hearth', first.checkpoint, stand, secrets, access());
    expect(second.translation.activities.filter((activity) => firstIds.has(activity.id))).toEqual([]);
    expect(new URLSearchParams(questionRequests().at(-1)!.path.split('?')[1]).get('fromdate')).toBe(String(saved.from));
  });

  it('reads only what is new at the next sync: new questions, and old ones answered since; a lone comment waits for its question to move', async () => {
    const { checkpoint } = await walk('tag:hearth', null);
    api.requests.length = 0;
    clock.advance(3_600_000);
    const [oldQuestion, quiet] = api.questionIds('hearth') as [number, number];
    const answerId = api.answer(oldQuestion, { owner: 1001, at: clock.now() });
    clock.advance(60_000);
    const comment = api.comment(answerId, { owner: 1008, at: clock.now() });
    const lone = api.comment(quiet, { owner: 1008, at: clock.now() });
    const newQuestion = api.ask({ owner: 1015, tags: ['hearth'], at: clock.now() });
    api.ask({ owner: 1015, tags: ['hearth-api'], at: clock.now() });

    const next = await walk('tag:hearth', checkpoint);
    expect(next.pages).toHaveLength(1);
    const ids = next.activities.map((activity) => activity.id);
    expect(ids).toEqual(expect.arrayContaining([`question:${newQuestion}`, `answer:${answerId}`, `comment:${comment}`, `question:${oldQuestion}`]));
    expect(ids).not.toContain(`comment:${lone}`);
    // Three new posts read (the answer, its comment, the question); the old question's thread read again is not counted.
    expect(next.records).toBe(3);
    const asked = questionRequests().map((request) => new URLSearchParams(request.path.split('?')[1]));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.get('sort')).toBe('activity');

    // Nothing new: one request for the tag.
    api.requests.length = 0;
    const idle = await walk('tag:hearth', next.checkpoint);
    expect(idle.activities).toEqual([]);
    expect(api.requests).toHaveLength(1);
    // Another answer on that old question brings the lone comment with it.
    clock.advance(60_000);
    api.answer(quiet, { owner: 1001, at: clock.now() });
    const later = await walk('tag:hearth', idle.checkpoint);
    expect(later.activities.map((activity) => activity.id)).toContain(`comment:${lone}`);
  });

  it('starts at the `since` day, and lists every followed tag as a stream', async () => {
    expect(await kind.streams({ tags: ['hearth', 'hearth-api'] }, {}, access())).toEqual(['tag:hearth', 'tag:hearth-api']);
    await kind.page('tag:hearth', null, { ...stand, since: '2025-06-10' }, secrets, access());
    const query = new URLSearchParams(questionRequests()[0]!.path.split('?')[1]);
    expect(query.get('fromdate')).toBe(String(Date.parse('2025-06-10T00:00:00Z') / 1000));
  });

  it('waits as a throttle_violation says, five minutes when it says nothing, a minute on the API being unavailable', async () => {
    api.fault({ kind: 'throttle-violation', seconds: 86_000 });
    const refused = await kind.page('tag:hearth', null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(RateLimitWait);
    expect((refused as RateLimitWait).until).toEqual(new Date(NOW.getTime() + 86_000_000));
    expect((refused as Error).message).toContain('throttle_violation');

    api.fault({ kind: 'throttle-violation' });
    expect(((await kind.page('tag:hearth', null, stand, secrets, access()).catch((caught: unknown) => caught)) as RateLimitWait).until).toEqual(
      new Date(NOW.getTime() + 300_000),
    );
    for (const fault of [{ kind: 'temporarily-unavailable' }, { kind: 'server-error', status: 503 }] as const) {
      api.fault(fault);
      const waited = await kind.page('tag:hearth', null, stand, secrets, access()).catch((caught: unknown) => caught);
      expect(waited, fault.kind).toBeInstanceOf(RateLimitWait);
      expect((waited as RateLimitWait).until).toEqual(new Date(NOW.getTime() + 60_000));
    }
  });

  it('stops at a spent daily quota until the next UTC day, without spending a refused request', async () => {
    // The first request spends the last: the page cannot read its answers, and asks nothing more.
    api.setQuota(1);
    const spent = await kind.page('tag:hearth', null, stand, secrets, access()).catch((caught: unknown) => caught);
    expect(spent).toBeInstanceOf(RateLimitWait);
    expect((spent as RateLimitWait).until).toEqual(new Date('2026-01-16T00:00:00.000Z'));
    expect((spent as Error).message).toContain('0 of 10000 requests left');
    expect(api.requests).toHaveLength(1);

    // A page that needs only that request is kept, and says to wait.
    api.setQuota(10_000);
    const { checkpoint } = await walk('tag:hearth', null);
    api.setQuota(1);
    const last = await kind.page('tag:hearth', checkpoint, stand, secrets, access());
    expect(last.pauseUntil).toEqual(new Date('2026-01-16T00:00:00.000Z'));
    // Refused by the API itself (another process spent it): also the next day.
    const refused = await kind.page('tag:hearth', checkpoint, stand, secrets, access()).catch((caught: unknown) => caught);
    expect((refused as RateLimitWait).until.getTime()).toBe(Date.parse('2026-01-16T00:00:00.000Z'));
  });

  it('honours backoff: a short one is waited out, a long one ends the page and holds the method until then', async () => {
    // The API refuses a request within the backoff ("Violation of backoff parameter"): a page that did not
    // wait would fail.
    api.fault({ kind: 'backoff', seconds: 1 }, { path: /^\/questions\/[\d;]+\/answers\?/ });
    const started = Date.now();
    const cache = new Map<string, unknown>();
    const { checkpoint } = await walk('tag:hearth', null, stand, cache);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(checkpoint).toMatchObject({ walk: 'activity' });

    api.fault({ kind: 'backoff', seconds: 120 }, { path: /^\/questions\?/ });
    const page = await kind.page('tag:hearth', checkpoint, stand, secrets, access(cache));
    expect(page.pauseUntil).toEqual(new Date(NOW.getTime() + 120_000));
    const asked = api.requests.length;
    const held = await kind.page('tag:hearth', page.checkpoint, stand, secrets, access(cache)).catch((caught: unknown) => caught);
    expect(held).toBeInstanceOf(RateLimitWait);
    expect((held as RateLimitWait).until).toEqual(new Date(NOW.getTime() + 120_000));
    expect(api.requests.length).toBe(asked);
    clock.advance(121_000);
    expect((await kind.page('tag:hearth', page.checkpoint, stand, secrets, access(cache))).done).toBe(true);
  });

  it('fails on a refused key without showing it, and on a site the API does not know', async () => {
    const refused = await kind.page('tag:hearth', null, stand, { key: 'not-the-apps-key' }, access()).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(CredentialRejected);
    expect((refused as Error).message).toContain('refused the app key');
    expect((refused as Error).message).not.toContain('not-the-apps-key');
    const unknown = await kind.page('tag:hearth', null, { ...stand, site: 'nosuchsite' }, secrets, access()).catch((caught: unknown) => caught);
    expect(unknown).not.toBeInstanceOf(CredentialRejected);
    expect((unknown as Error).message).toContain('knows no site "nosuchsite"');
  });

  it('reads without a key on the anonymous quota, reads profiles, and tests the site and tags', async () => {
    const anonymous = await kind.page('tag:hearth', null, stand, {}, access());
    expect(anonymous.translation.activities.length).toBeGreaterThan(0);
    expect(api.requests.every((request) => !request.keyed)).toBe(true);
    expect(anonymous.checkpoint).toMatchObject({ quota: { max: 300 } });

    const people = await kind.profiles!(['1001', '1008', '424242', '-1', 'x'], stand, secrets, access());
    for (const person of people) expect(checkUser(person), JSON.stringify(checkUser.errors)).toBe(true);
    people.sort((a, b) => Number(a.id) - Number(b.id));
    expect(people.map((person) => person.id)).toEqual(['1001', '1008']);
    // Person 0's website is a site of their own; person 1's a GitHub page, left out.
    expect(people[0]).toMatchObject({
      username: 'Ada Lovelace',
      rawLocation: 'Berlin, Germany',
      externalProfiles: [
        { url: 'https://stackoverflow.com/users/1001/ada-lovelace', name: 'stackoverflow.com' },
        { url: 'https://person0.example.org/', name: 'website' },
      ],
    });
    expect(people[1]).toMatchObject({ username: 'Grace Ritchie', rawLocation: 'Austin, TX' });
    expect(people[1]!.externalProfiles).toEqual([{ url: 'https://stackoverflow.com/users/1008/grace-ritchie', name: 'stackoverflow.com' }]);
    expect(api.requests.at(-1)!.path).toMatch(/^\/users\/1001;1008;424242\?/);

    api.setQuota(9_000);
    // The newest question tagged hearth is the one asked by an earlier test, on the clock's day.
    expect(await kind.test({ ...stand, tags: ['hearth', 'hearth-apl'] }, secrets, access())).toBe(
      "site 'stackoverflow' reached with the app key; 8,998 of 10,000 requests left today; tags: hearth (newest question 2026-01-15), hearth-apl (no question: check the spelling)",
    );
    await expect(kind.test(stand, { key: 'not-the-apps-key' }, access())).rejects.toThrow(/refused the app key/);
  });

  it('reads answers a fetch has already decompressed', async () => {
    const plainFetch: PlatformAccess = { fetch: globalThis.fetch, now: () => clock.now(), signal: new AbortController().signal, cache: new Map() };
    const page = await kind.page('tag:hearth', null, stand, secrets, plainFetch);
    expect(page.translation.activities.length).toBeGreaterThan(100);
  });
});

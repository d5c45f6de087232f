import os from 'node:os';
import type { ConnectorKind } from '../src/modules/connectors/index.ts';
import { CONNECTOR_KINDS } from '../src/modules/connectors/connector-kinds.ts';
import { startDevtoStandIn } from '../test/stand-ins/devto-api.ts';
import { startDiscordStandIn } from '../test/stand-ins/discord-api.ts';
import { startHackerNewsStandIn } from '../test/stand-ins/hackernews-api.ts';
import { startRedditStandIn } from '../test/stand-ins/reddit-api.ts';
import { startSlackStandIn } from '../test/stand-ins/slack-api.ts';
import { startStackExchangeStandIn } from '../test/stand-ins/stackexchange-api.ts';
import type { BenchDatabase } from './database.ts';
import { translateAll } from './connector-pages.ts';
import { count, fresh, postBatches, readConnector, sleep, type Connector } from './connectors.ts';
import type { ServerChild } from './ipc.ts';
import { createClient } from './load.ts';
import type { Figure } from './report.ts';

/**
 * Every platform's backfill against the batch route (docs/connectors.md, docs/performance.md), on PostgreSQL,
 * each on new databases, against the platform's local stand-in (test/stand-ins) that this process starts
 * with a generated history of about `records` records:
 * - the connector: made through the admin API, timed from the create request until its first sync is over
 *   (every stream, then the profile pass where the kind reads profiles), by polling the admin API;
 * - the baseline: the batch route taking the same pushes, the kind's own translation of the same pages and
 *   profiles read by this process beforehand, one request per page as the connector stores them, one
 *   request in flight as the connector has.
 * Both store exactly the same activities (checked), so the ratio is what the connector's reading, paging
 * and bookkeeping cost over the storing alone.
 */

export interface PlatformBackfillsContext {
  serverUrl: string;
  env: Record<string, string>;
  /** About how many records each platform's history holds. */
  records: number;
  /** The platforms measured (all when not given). */
  platforms?: string[];
  log: (line: string) => void;
  track: (child: ServerChild) => void;
  trackDatabase: (database: BenchDatabase) => void;
}

/** A platform's stand-in with a history, and the connector that reads it. */
interface Platform {
  /** The connector's create body: kind, settings pointing at the stand-in, secrets. */
  body: { kind: string; settings: Record<string, unknown>; secrets: Record<string, unknown> };
  /** What the history holds, in words. */
  described: string;
  stop(): Promise<void>;
}

interface PlatformCase {
  name: string;
  start(records: number): Promise<Platform>;
}

const CASES: PlatformCase[] = [
  {
    // One channel; every tenth message starts a thread of four replies; a person for every ten records.
    name: 'slack',
    async start(records) {
      const people = Math.max(2, Math.round(records / 10));
      const token = 'xoxb-bench-token';
      const slack = await startSlackStandIn({
        token,
        channels: [{ id: 'C0BENCH001', name: 'general', isMember: true }],
        users: Array.from({ length: people }, (_, i) => ({ id: `U0B${String(i).padStart(6, '0')}`, name: `member${i}`, realName: `Member ${i}` })),
      });
      const user = (n: number) => `U0B${String(n % people).padStart(6, '0')}`;
      let made = 0;
      for (let n = 0; made < records; n++) {
        const parent = slack.post('C0BENCH001', { user: user(n * 7), text: `Message ${n}: how do I configure the widget for ${n % 13} nodes?` });
        made += 1;
        if (n % 10 === 0) {
          for (let r = 0; r < 4 && made < records; r++, made++)
            slack.post('C0BENCH001', { user: user(n * 7 + r + 1), text: `Reply ${r} to message ${n}`, thread_ts: parent.ts });
        }
      }
      return {
        body: { kind: 'slack', settings: { channels: ['C0BENCH001'], apiUrl: slack.url }, secrets: { botToken: token, webhookSecret: 'bench-signing-secret' } },
        described: `${made.toLocaleString('en')} messages and thread replies of ${people.toLocaleString('en')} members in one channel`,
        stop: () => slack.stop(),
      };
    },
  },
  {
    // One channel of a server; every tenth message starts a thread of three replies, every fifth gets reactions.
    name: 'discord',
    async start(records) {
      const token = 'bench-discord-bot-token';
      const discord = await startDiscordStandIn({ token, channels: [{ name: 'general' }] });
      const channelId = discord.channel('general');
      const counts = discord.generate({
        seed: 7,
        channelId,
        messages: Math.max(10, Math.round(records * 0.7)),
        people: Math.max(2, Math.round(records / 10)),
        threadEvery: 10,
        repliesPerThread: 3,
        reactionEvery: 5,
      });
      return {
        body: { kind: 'discord', settings: { guildId: discord.guildId, channels: [channelId], apiUrl: discord.url }, secrets: { botToken: token } },
        described: `${counts.messages.toLocaleString('en')} messages, ${counts.threadReplies.toLocaleString('en')} thread replies, ${counts.reactions.toLocaleString('en')} reactions and ${counts.joins.toLocaleString('en')} joins of ${counts.people.length.toLocaleString('en')} people`,
        stop: () => discord.stop(),
      };
    },
  },
  {
    // One tag; each question with up to three answers and up to two comments a post.
    name: 'stackoverflow',
    async start(records) {
      const stack = await startStackExchangeStandIn({
        history: { questions: Math.max(4, Math.round(records / 4)), tags: ['hearth'], people: Math.max(2, Math.round(records / 10)), seed: 7 },
      });
      const counts = stack.counts(['hearth']);
      return {
        body: { kind: 'stackoverflow', settings: { tags: ['hearth'], apiUrl: stack.url }, secrets: {} },
        described: `${counts.questions.toLocaleString('en')} questions, ${counts.answers.toLocaleString('en')} answers (${counts.accepted.toLocaleString('en')} accepted) and ${counts.comments.toLocaleString('en')} comments of ${counts.people.toLocaleString('en')} people`,
        stop: () => stack.stop(),
      };
    },
  },
  {
    // Items a minute apart up to now, every one mentioning the followed keyword; stories and comments.
    name: 'hackernews',
    async start(records) {
      const hn = await startHackerNewsStandIn({
        history: { count: records, seed: 7, newest: new Date(), mentions: ['hearth'], authors: Math.max(2, Math.round(records / 10)) },
      });
      return {
        body: { kind: 'hackernews', settings: { keywords: ['hearth'], apiUrl: hn.url }, secrets: {} },
        described: `${hn.items().length.toLocaleString('en')} stories and comments mentioning the keyword, by ${Math.max(2, Math.round(records / 10)).toLocaleString('en')} people`,
        stop: () => hn.stop(),
      };
    },
  },
  {
    // One subreddit: a fifth posts, the rest comments (its lists reach back 1,000 things, as Reddit's do).
    name: 'reddit',
    async start(records) {
      const reddit = await startRedditStandIn({
        clientId: 'bench-client',
        clientSecret: 'bench-client-secret',
        subreddits: [{ name: 'hearth' }],
        rateLimit: { requests: 1_000_000, periodSeconds: 600 },
      });
      const made = reddit.generate({
        subreddit: 'hearth',
        posts: Math.max(1, Math.round(records / 5)),
        comments: Math.round((records * 4) / 5),
        people: Math.max(2, Math.round(records / 10)),
        seed: 7,
      });
      return {
        body: {
          kind: 'reddit',
          settings: { subreddits: ['hearth'], apiUrl: reddit.url, authUrl: reddit.authUrl },
          secrets: { clientId: 'bench-client', clientSecret: 'bench-client-secret' },
        },
        described: `${made.posts.toLocaleString('en')} posts and ${made.comments.toLocaleString('en')} comments of ${made.people.toLocaleString('en')} people in one subreddit`,
        stop: () => reddit.stop(),
      };
    },
  },
  {
    // One tag: a fifth articles, the rest comments on them (some answering others).
    name: 'devto',
    async start(records) {
      const dev = await startDevtoStandIn();
      const made = dev.generate({
        seed: 7,
        articles: Math.max(1, Math.round(records / 5)),
        comments: Math.round((records * 4) / 5),
        people: Math.max(2, Math.round(records / 10)),
        tag: 'hearth',
      });
      return {
        body: { kind: 'devto', settings: { tags: ['hearth'], apiUrl: dev.url }, secrets: {} },
        described: `${made.articles.toLocaleString('en')} articles and ${made.comments.toLocaleString('en')} comments of ${made.people.length.toLocaleString('en')} people under one tag`,
        stop: () => dev.stop(),
      };
    },
  },
];

export const PLATFORM_NAMES = CASES.map((one) => one.name);

export async function measurePlatformBackfills(context: PlatformBackfillsContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { log } = context;
  const load = { start: os.loadavg().map((value) => Math.round(value * 100) / 100) };
  const figures: Figure[] = [];
  const results: Record<string, unknown> = {};
  const wanted = CASES.filter((one) => !context.platforms || context.platforms.includes(one.name));
  for (const platform of wanted) {
    const kind = CONNECTOR_KINDS.find((one) => one.kind === platform.name) as ConnectorKind<unknown, unknown> | undefined;
    if (!kind) throw new Error(`no connector kind ${platform.name}`);
    const history = await platform.start(context.records);
    try {
      log(`\n${kind.platformName} backfill: ${history.described}; reading and translating it with the ${platform.name} kind…`);
      const { settings, secrets } = history.body;
      const translated = await translateAll(kind, settings, secrets);
      const ids = new Set(translated.pages.flatMap((page) => page.activities.map((activity) => String(activity.id))));
      const activities = ids.size;
      const profiles = translated.profileBatches.reduce((sum, batch) => sum + batch.length, 0);
      log(
        `  ${translated.pages.length} pages, ${activities.toLocaleString('en')} activities of ${translated.people.length.toLocaleString('en')} people in ${(translated.readMs / 1000).toFixed(1)} s` +
          (kind.profiles ? `; ${profiles.toLocaleString('en')} profiles in ${(translated.profilesReadMs / 1000).toFixed(1)} s (8 requests at a time)` : ''),
      );

      // The connector, from the create request to the end of its first sync.
      const own = await fresh(context);
      const admin = createClient({ token: own.setup.token });
      const started = performance.now();
      const answer = await admin.post(`${own.hearth.url}/api/v2/admin/connectors`, history.body);
      if (answer.status !== 201) throw new Error(`POST /api/v2/admin/connectors answered ${answer.status}: ${answer.body.slice(0, 500)}`);
      const made = (JSON.parse(answer.body) as { data: Connector }).data;
      let connector = made;
      while (connector.lastSyncAt === null) {
        await sleep(100);
        connector = await readConnector(admin, own.hearth.url, made.id);
      }
      const connectorSeconds = (performance.now() - started) / 1000;
      const stored = await count(own.database.url, 'select count(*) as n from activities where source_id = $1', [made.sourceId]);
      if (stored !== activities)
        throw new Error(`the ${platform.name} connector stored ${stored} activities; the kind's translation of the same pages makes ${activities}`);
      const records = connector.streams.reduce((sum, stream) => sum + stream.records, 0);
      admin.close();
      await own.hearth.stop();
      await own.database.drop();

      // The batch route, the same pushes in the same order: each page's users, then its activities, then the profiles.
      const baseline = await fresh(context);
      const client = createClient({ token: baseline.setup.token });
      const base = `${baseline.hearth.url}/community/v1/source/${baseline.setup.sourceId}`;
      let batchSeconds = 0;
      for (const page of translated.pages) {
        if (page.users.length) batchSeconds += (await postBatches(client, `${base}/users`, [page.users], 1)).seconds;
        if (page.activities.length) batchSeconds += (await postBatches(client, `${base}/activities`, [page.activities], 1)).seconds;
      }
      if (translated.profileBatches.length) batchSeconds += (await postBatches(client, `${base}/users`, translated.profileBatches, 1)).seconds;
      const inBatch = await count(baseline.database.url, 'select count(*) as n from activities where source_id = $1', [baseline.setup.sourceId]);
      if (inBatch !== activities) throw new Error(`the batch route stored ${inBatch} activities of ${activities}`);
      client.close();
      await baseline.hearth.stop();
      await baseline.database.drop();

      const connectorRate = activities / connectorSeconds;
      const batchRate = activities / batchSeconds;
      log(
        `  connector: ${connectorSeconds.toFixed(1)} s, ${connectorRate.toFixed(0)} activities/s (its streams count ${records.toLocaleString('en')} records); ` +
          `batch route, 1 request in flight: ${batchSeconds.toFixed(1)} s, ${batchRate.toFixed(0)} activities/s`,
      );
      figures.push({
        name: `${kind.platformName} backfill (${activities} activities, ${translated.people.length} people) vs batch route, 1 request in flight`,
        measured: 'connector',
        value: connectorRate,
        baselineName: 'batch route',
        baseline: batchRate,
        unit: 'items/s',
        ratio: connectorRate / batchRate,
        goal: { op: '>=', value: 0.5 },
      });
      results[platform.name] = {
        history: history.described,
        pages: translated.pages.length,
        activities,
        people: translated.people.length,
        profiles,
        readSeconds: translated.readMs / 1000,
        profilesReadSeconds: translated.profilesReadMs / 1000,
        connectorSeconds,
        batchSeconds,
      };
    } finally {
      await history.stop();
    }
  }
  return { figures, results: { load: { ...load, end: os.loadavg().map((value) => Math.round(value * 100) / 100) }, platforms: results } };
}

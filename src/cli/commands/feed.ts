import { cliWriter } from '../../core/writer.ts';
import { community, positiveInteger, required, table, UsageError, type Command } from '../command.ts';

const KINDS = ['greenhouse', 'lever', 'ashby', 'rss'] as const;

function feedId(value: string | undefined): number {
  const given = required(value, 'the feed ID');
  const match = /^feed_(\d+)$/.exec(given);
  if (!match) throw new UsageError(`"${given}" is not a feed ID (feed_N)`);
  return Number(match[1]);
}

export const feedCommand: Command = {
  name: 'feed',
  usage: `  feed add (--organization o_N | --object co_N) --kind greenhouse|lever|ashby|rss --url URL [--interval MINUTES]
           [--community com_N] [--json]    fetch an organization's careers board or news feed, now and then on schedule
  feed list [--community com_N] [--json]  the feeds and their last fetch
  feed fetch feed_N [--community com_N]   fetch now (a job the serving process runs)
  feed remove feed_N [--community com_N]  stop fetching; what the feed brought stays`,
  run: {
    async add({ services, values, emit }) {
      const kind = required(values.kind, '--kind');
      if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${KINDS.join(', ')}`);
      const feed = await services.feeds.add(cliWriter(await community(services, values.community)), {
        organizationId: values.organization,
        objectId: values.object,
        kind: kind as (typeof KINDS)[number],
        url: required(values.url, '--url'),
        intervalMinutes: values.interval === undefined ? undefined : positiveInteger(values.interval, '--interval'),
      });
      emit(feed, `Added ${feed.id} (${feed.kind}, ${feed.url}) to ${feed.organizationId ?? feed.objectId}: fetched every ${feed.intervalMinutes} minutes, first while \`hearth serve\` runs.`);
      return 0;
    },
    async list({ services, values, emit }) {
      const feeds = await services.feeds.list(await community(services, values.community));
      const rows = feeds.map((feed) => [feed.id, feed.organizationId ?? feed.objectId ?? '', feed.kind, feed.url, feed.lastFetchedAt ?? '', feed.lastStatus ?? '', feed.nextFetchAt]);
      emit(feeds, rows.length ? table([['FEED', 'OF', 'KIND', 'URL', 'LAST FETCH', 'STATUS', 'NEXT FETCH'], ...rows]) : '(none)');
      return 0;
    },
    async fetch({ services, values, args, emit }) {
      const id = feedId(args[0]);
      const { jobId } = await services.feeds.fetchNow(cliWriter(await community(services, values.community)), id);
      emit({ jobId }, `Fetching feed_${id} as job ${jobId} (\`hearth jobs show ${jobId}\`).`);
      return 0;
    },
    async remove({ services, values, args, emit }) {
      const id = feedId(args[0]);
      await services.feeds.remove(cliWriter(await community(services, values.community)), id);
      emit({ removed: `feed_${id}` }, `Removed feed_${id}.`);
      return 0;
    },
  },
};

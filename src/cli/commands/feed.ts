import { formatId, ID_PREFIXES } from '../../core/ids.ts';
import { community, communityWriter, durationOption, required, table, UsageError, type Command } from '../command.ts';

const KINDS = ['greenhouse', 'lever', 'ashby', 'rss'] as const;

function feedId(value: string | undefined): number {
  const given = required(value, 'the feed ID');
  const prefix = ID_PREFIXES.feed;
  const key = given.startsWith(prefix) && /^\d+$/.test(given.slice(prefix.length)) ? Number(given.slice(prefix.length)) : null;
  if (key === null) throw new UsageError(`"${given}" is not a feed ID (${prefix}N)`);
  return key;
}

/** `--interval`: a duration (a bare number is minutes, as it always was), in whole minutes. */
function feedInterval(value: string): number {
  const minutes = durationOption(value, '--interval', 'm') / 60_000;
  if (!Number.isInteger(minutes) || minutes <= 0) throw new UsageError(`--interval must be a positive whole number of minutes (15m, 1h, 1d); got "${value}"`);
  return minutes;
}

export const feedCommand: Command = {
  name: 'feed',
  run: {
    async add({ services, values, emit }) {
      const kind = required(values.kind, '--kind');
      if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${KINDS.join(', ')}`);
      const feed = await services.feeds.add(await communityWriter({ services, values }), {
        organizationId: values.organization,
        objectId: values.object,
        kind: kind as (typeof KINDS)[number],
        url: required(values.url, '--url'),
        intervalMinutes: values.interval === undefined ? undefined : feedInterval(values.interval),
      });
      emit(
        feed,
        `Added ${feed.id} (${feed.kind}, ${feed.url}) to ${feed.organizationId ?? feed.objectId}: fetched every ${feed.intervalMinutes} minutes, first while \`hearth serve\` runs.`,
      );
      return 0;
    },
    async list({ services, values, emit }) {
      const feeds = await services.feeds.list(await community(services, values.community));
      const rows = feeds.map((feed) => [
        feed.id,
        feed.organizationId ?? feed.objectId ?? '',
        feed.kind,
        feed.url,
        feed.lastFetchedAt ?? '',
        feed.lastStatus ?? '',
        feed.nextFetchAt,
      ]);
      emit(feeds, rows.length ? table(['FEED', 'OF', 'KIND', 'URL', 'LAST FETCH', 'STATUS', 'NEXT FETCH'], rows) : '(none)');
      return 0;
    },
    async fetch({ services, values, args, emit }) {
      const id = feedId(args[0]);
      const { jobId } = await services.feeds.fetchNow(await communityWriter({ services, values }), id);
      emit({ jobId }, `Fetching ${formatId('feed', id)} as job ${jobId} (\`hearth jobs show ${jobId}\`).`);
      return 0;
    },
    async remove({ services, values, args, emit }) {
      const id = feedId(args[0]);
      await services.feeds.remove(await communityWriter({ services, values }), id);
      emit({ removed: formatId('feed', id) }, `Removed ${formatId('feed', id)}.`);
      return 0;
    },
  },
};

import { parseCoreId } from '../../core/ids.ts';
import { cliWriter } from '../../core/writer.ts';
import { community, communityWriter, required, table, UsageError, type Command, type CommandContext } from '../command.ts';

function sourceKind(value: string | undefined): 'api' | 'file' | undefined {
  if (value === undefined || value === 'api' || value === 'file') return value;
  throw new UsageError('--kind must be api or file');
}

const TRACKER_ACTIONS = ['enable', 'show', 'rotate', 'rotate-secret', 'revoke'] as const;

function trueOrFalse(value: string | undefined, option: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`${option} must be true or false`);
}

interface TrackerView {
  key: string;
  allowedOrigins: string[];
  allowUnverifiedIdentify: boolean;
  identifySecret?: string;
  identifySecretCreatedAt: string | null;
  snippet: string;
}

/** The tracker as printed; its identify secret only where the service returned it (made just now). */
function describeTracker(data: TrackerView, what: string): string {
  const lines = [
    what,
    `  key      ${data.key}`,
    `  origins  ${data.allowedOrigins.join(', ') || "none: nothing is recorded until you name the site's origins (--origins)"}`,
    `  identify ${data.allowUnverifiedIdentify ? 'signed, and unsigned calls allowed' : 'signed only (unsigned calls are kept apart)'}`,
  ];
  if (data.identifySecret) lines.push(`  secret   ${data.identifySecret}   (shown once: the site's backend signs addresses with it)`);
  else if (!data.identifySecretCreatedAt) lines.push('  secret   none yet: `hearth source tracker rotate-secret` makes one');
  lines.push(`  embed    ${data.snippet}`);
  return lines.join('\n');
}

/** `hearth source tracker ACTION SOURCE_ID`: the source's website tracker, as the admin routes manage it. */
async function tracker({ services, values, args, emit }: CommandContext): Promise<number> {
  const action = args[0] as (typeof TRACKER_ACTIONS)[number] | undefined;
  if (!action || !TRACKER_ACTIONS.includes(action)) throw new UsageError(`source tracker takes one of ${TRACKER_ACTIONS.join(', ')}`);
  const sourceId = parseCoreId('provider', required(args[1], 'the source ID (as `hearth source list` shows it)'));
  if (values.origins !== undefined && action !== 'enable') throw new UsageError('--origins goes with `source tracker enable`');
  const unverified = values['allow-unverified-identify'];
  if (unverified !== undefined && action !== 'enable') throw new UsageError('--allow-unverified-identify goes with `source tracker enable`');
  const allowUnverifiedIdentify = trueOrFalse(unverified, '--allow-unverified-identify');
  const communityId = await community(services, values.community);
  const writer = cliWriter(communityId);
  const shown = (data: TrackerView, what: string) => emit(data, describeTracker(data, what));
  if (action === 'enable') {
    const origins =
      values.origins === undefined
        ? undefined
        : values.origins
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean);
    const { created, tracker } = await services.trackers.enable(writer, sourceId, { allowedOrigins: origins, allowUnverifiedIdentify });
    shown(tracker, created ? `Enabled the website tracker of source ${sourceId}.` : `The website tracker of source ${sourceId} is enabled.`);
  } else if (action === 'show') {
    shown(await services.trackers.get(communityId, sourceId), `The website tracker of source ${sourceId}:`);
  } else if (action === 'rotate') {
    shown(
      await services.trackers.rotate(writer, sourceId),
      `Source ${sourceId} has a new tracker key and identify secret; the old key is refused from now on.`,
    );
  } else if (action === 'rotate-secret') {
    shown(
      await services.trackers.rotateSecret(writer, sourceId),
      `Source ${sourceId}'s tracker has a new identify secret; signatures made with the old one are refused from now on.`,
    );
  } else {
    const old = await services.trackers.revoke(writer, sourceId);
    emit(old, `Revoked the website tracker of source ${sourceId}: ${old.key} is refused from now on.`);
  }
  return 0;
}

export const sourceCommand: Command = {
  name: 'source',
  run: {
    tracker,
    async create({ services, values, emit, file }) {
      const source = await services.sources.create(await communityWriter({ services, values }), {
        name: required(values.name, '--name'),
        kind: sourceKind(values.kind),
        path: values.path === undefined ? null : file(values.path),
      });
      emit({ sourceId: source.id }, `Created source ${source.id} ("${source.name}", ${source.kind}).`);
      return 0;
    },
    async list({ services, values, emit }) {
      const communityId = await community(services, values.community);
      const list = await services.sources.list(communityId);
      const keys = new Map((await services.trackers.list(communityId)).map((tracker) => [tracker.sourceId, tracker.key]));
      const keyOf = (id: number) => keys.get(`sig_${id}`) ?? null;
      emit(
        list.map((s) => ({ sourceId: s.id, name: s.name, kind: s.kind, path: s.path, visible: s.visible, trackerKey: keyOf(s.id) })),
        table(
          ['SOURCE', 'NAME', 'KIND', 'PATH', 'TRACKER KEY'],
          list.map((s) => [String(s.id), s.name, s.kind, s.path ?? '', keyOf(s.id) ?? '']),
        ),
      );
      return 0;
    },
  },
};

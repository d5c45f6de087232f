import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseConnectorId } from '../../modules/connectors/index.ts';
import { community, communityWriter, required, table, UsageError, type Command, type CommandContext } from '../command.ts';

type Shown = Awaited<ReturnType<CommandContext['services']['connectors']['get']>>;

function connectorId(value: string | undefined): number {
  try {
    return parseConnectorId(required(value, 'the connector ID (sig_N)'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`"${value}" is not a connector ID (sig_N)`);
  }
}

/** `--settings` is JSON, or `@FILE` holding it. */
function settingsOf(context: CommandContext, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const text = value.startsWith('@') ? readFileSync(context.file(value.slice(1)), 'utf8') : value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`--settings: ${value.startsWith('@') ? `${value.slice(1)} does not hold` : 'is not'} a JSON object`);
  }
}

/** `--secrets FILE` (a JSON object) or `--secrets -` (standard input): never the command line, which others can read. */
function secretsOf(context: CommandContext, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const text = value === '-' ? (context.stdin ?? '') : readFileSync(context.file(value), 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--secrets: ${value === '-' ? 'standard input does not hold' : `${value} does not hold`} a JSON object of the secrets by name`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--secrets must hold a JSON object of the secrets by name');
  return parsed as Record<string, unknown>;
}

const describe = (c: Shown) =>
  [
    `${c.id} ${c.kind} "${c.name}": ${c.state}${c.reason ? ` (${c.reason})` : ''}${c.waitingUntil ? `, waiting until ${c.waitingUntil}` : ''}`,
    `  receiver: ${c.receiverUrl ?? 'none (the platform sends no webhooks; read by syncs)'}`,
    `  settings: ${JSON.stringify(c.settings)}`,
    `  secrets set: ${c.secrets.join(', ') || '(none)'}`,
    `  last event: ${c.lastEventAt ?? 'never'}; last sync: ${c.lastSyncAt ?? 'never'}; last 24h: ${c.last24h.deliveries} deliveries, ${c.last24h.records} records`,
    ...(c.streams.length
      ? [
          table(
            ['  STREAM', 'DONE', 'RECORDS', 'TOTAL', 'UPDATED'],
            c.streams.map((s) => [`  ${s.stream}`, s.done ? 'yes' : 'no', String(s.records), s.total === null ? '' : String(s.total), s.updatedAt]),
          ),
        ]
      : []),
  ].join('\n');

/** Whether a kind's secrets (an object, or a choice of objects) have a `webhookSecret`. */
function takesWebhookSecret(schema: unknown): boolean {
  const { properties, anyOf, oneOf } = schema as { properties?: Record<string, unknown>; anyOf?: unknown[]; oneOf?: unknown[] };
  return (properties !== undefined && 'webhookSecret' in properties) || [...(anyOf ?? []), ...(oneOf ?? [])].some(takesWebhookSecret);
}

export const connectorCommand: Command = {
  name: 'connector',
  run: {
    async add(context) {
      const { services, values, emit } = context;
      const kindName = required(values.kind, '--kind');
      const kind = services.connectors.kinds().find((one) => one.kind === kindName);
      if (!kind)
        throw new UsageError(
          `--kind must be one of: ${
            services.connectors
              .kinds()
              .map((one) => one.kind)
              .join(', ') || '(none on this server)'
          }`,
        );
      const secrets = secretsOf(context, required(values.secrets, '--secrets (a JSON file, or - for standard input)'))!;
      // The receiver's signing secret, made here when none is given: printed once, to paste into the platform
      // (unless the platform issues it, when only its own works).
      const generated =
        kind.receives && takesWebhookSecret(kind.secretsSchema) && !kind.platformIssuesWebhookSecret && secrets.webhookSecret === undefined
          ? randomBytes(32).toString('hex')
          : null;
      if (generated) secrets.webhookSecret = generated;
      const connector = await services.connectors.create(await communityWriter(context), {
        kind: kindName,
        name: values.name,
        settings: settingsOf(context, required(values.settings, '--settings')),
        secrets,
      });
      emit(
        { ...connector, ...(generated ? { webhookSecret: generated } : {}) },
        `Added ${describe(connector)}\nThe first sync runs as a job (\`hearth jobs\`) while \`hearth serve\` runs.` +
          (generated ? `\nWebhook secret (shown once; set it with the receiver URL in ${kind.platformName}'s webhook settings): ${generated}` : ''),
      );
      return 0;
    },
    async list({ services, values, emit }) {
      const all = await services.connectors.list(await community(services, values.community));
      const rows = all.map((c) => [c.id, c.kind, c.name, c.state, c.reason ?? '', c.lastSyncAt ?? '', `${c.last24h.deliveries}/${c.last24h.records}`]);
      emit(all, table(['CONNECTOR', 'KIND', 'NAME', 'STATE', 'REASON', 'LAST SYNC', '24H DELIVERIES/RECORDS'], rows));
      return 0;
    },
    async show({ services, values, args, emit }) {
      const connector = await services.connectors.get(await community(services, values.community), connectorId(args[0]));
      emit(connector, describe(connector));
      return 0;
    },
    async update(context) {
      const { services, values, args, emit } = context;
      const connector = await services.connectors.update(await communityWriter(context), connectorId(args[0]), {
        name: values.name,
        settings: settingsOf(context, values.settings),
        secrets: secretsOf(context, values.secrets),
      });
      emit(connector, `Updated ${describe(connector)}`);
      return 0;
    },
    async sync(context) {
      const job = await context.services.connectors.syncNow(await communityWriter(context), connectorId(context.args[0]));
      context.emit(job, `Sync job ${job.jobId} ${job.created ? 'queued' : 'was already queued or running'}; \`hearth serve\` runs it.`);
      return 0;
    },
    async pause(context) {
      const connector = await context.services.connectors.pause(await communityWriter(context), connectorId(context.args[0]));
      context.emit(connector, `Paused ${connector.id}: deliveries are stored and processed once it resumes.`);
      return 0;
    },
    async resume(context) {
      const connector = await context.services.connectors.resume(await communityWriter(context), connectorId(context.args[0]));
      context.emit(connector, `Resumed ${describe(connector)}`);
      return 0;
    },
    async test(context) {
      const result = await context.services.connectors.testExisting(await communityWriter(context), connectorId(context.args[0]));
      context.emit(result, `${result.ok ? 'OK' : 'Failed'}: ${result.message}`);
      return result.ok ? 0 : 1;
    },
    async remove(context) {
      const connector = await context.services.connectors.remove(await communityWriter(context), connectorId(context.args[0]));
      context.emit(connector, `Removed connector ${connector.id}; its source "${connector.name}" and what it brought stay.`);
      return 0;
    },
  },
};

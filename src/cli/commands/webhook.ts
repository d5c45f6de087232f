import { readFileSync } from 'node:fs';
import { pointInTime } from '../../core/durations.ts';
import { ID_PREFIXES } from '../../core/ids.ts';
import { cliActor } from '../../core/writer.ts';
import {
  community,
  communityOrAll,
  communityWriter,
  durationOption,
  positiveInteger,
  required,
  table,
  UsageError,
  whenOption,
  type Command,
} from '../command.ts';

/** A `wh_N` or `whd_N` given on the command line. */
function prefixedId(entity: 'webhook' | 'delivery', value: string | undefined): number {
  const given = required(value, `the ${entity} ID`);
  const prefix = ID_PREFIXES[entity];
  const key = given.startsWith(prefix) && /^\d+$/.test(given.slice(prefix.length)) ? Number(given.slice(prefix.length)) : null;
  if (key === null) throw new UsageError(`"${given}" is not a ${entity} ID (${prefix}N)`);
  return key;
}

const webhookId = (value: string | undefined) => prefixedId('webhook', value);
const deliveryId = (value: string | undefined) => prefixedId('delivery', value);

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** `--filter` is the expression's JSON, or `@file` holding it; `--filter none` removes it (update). */
function filterOf(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`--filter: ${value.startsWith('@') ? `${value.slice(1)} does not hold` : 'is not'} a JSON filter expression`);
  }
}

type Hook = { id: string; url: string; events: string[]; enabled: boolean; disabledReason: string | null; filterEntity: string | null };
const line = (hook: Hook) => `${hook.id} ${hook.enabled ? 'enabled' : `disabled (${hook.disabledReason ?? ''})`}: ${hook.url} (${hook.events.join(', ')})`;

export const webhookCommand: Command = {
  name: 'webhook',
  run: {
    async add(context) {
      const { services, values, emit } = context;
      const hook = await services.webhooks.create(await communityWriter(context), {
        url: required(values.url, '--url'),
        events: list(required(values.events, '--events')),
        description: values.description,
        lightFilter: filterOf(values.filter) ?? undefined,
        filterEntity: values['filter-entity'],
      });
      emit(hook, `Added ${line(hook)}.\nSigning secret (shown once; \`hearth webhook rotate-secret ${hook.id}\` makes another): ${hook.secret}`);
      return 0;
    },
    async list({ services, values, emit }) {
      const hooks = await services.webhooks.list(await community(services, values.community));
      const rows = hooks.map((hook) => [
        hook.id,
        hook.enabled ? 'enabled' : 'disabled',
        hook.url,
        hook.events.join(','),
        hook.filterEntity ? `${hook.filterEntity} filter` : '',
        hook.failingSince ?? '',
      ]);
      emit(hooks, rows.length ? table(['WEBHOOK', 'STATE', 'URL', 'EVENTS', 'FILTER', 'FAILING SINCE'], rows) : '(none)');
      return 0;
    },
    async update(context) {
      const { services, values, args, emit } = context;
      const hook = await services.webhooks.update(await communityWriter(context), webhookId(args[0]), {
        url: values.url,
        events: values.events === undefined ? undefined : list(values.events),
        description: values.description,
        lightFilter: filterOf(values.filter),
        filterEntity: values['filter-entity'],
      });
      emit(hook, `Updated ${line(hook)}.`);
      return 0;
    },
    async disable(context) {
      const hook = await context.services.webhooks.disable(await communityWriter(context), webhookId(context.args[0]));
      context.emit(hook, `Disabled ${hook.id}: its deliveries wait until \`hearth webhook enable ${hook.id}\`.`);
      return 0;
    },
    async enable(context) {
      const hook = await context.services.webhooks.enable(await communityWriter(context), webhookId(context.args[0]));
      context.emit(hook, `Enabled ${line(hook)}; what waited is sent first.`);
      return 0;
    },
    async 'rotate-secret'(context) {
      const { values, args } = context;
      const hours = values['keep-previous'] === undefined ? undefined : durationOption(values['keep-previous'], '--keep-previous', 'h') / 3_600_000;
      if (hours !== undefined && !Number.isInteger(hours)) throw new UsageError('--keep-previous must be whole hours (24, 24h, 2d, P1D)');
      const hook = await context.services.webhooks.rotateSecret(await communityWriter(context), webhookId(args[0]), hours);
      context.emit(
        hook,
        `New signing secret of ${hook.id}: ${hook.secret}${hook.previousSecretUntil ? `\nThe previous one signs too until ${hook.previousSecretUntil}.` : ''}`,
      );
      return 0;
    },
    async deliveries({ services, values, args, emit }) {
      const communityId = await community(services, values.community);
      if (args[0]?.startsWith(ID_PREFIXES.delivery)) {
        const delivery = await services.webhooks.delivery(communityId, deliveryId(args[0]));
        const attempts = delivery.attemptLog.map((a) => [
          String(a.attempt),
          a.attemptedAt,
          a.responseStatus === null ? '' : String(a.responseStatus),
          `${a.durationMs} ms`,
          a.error ?? '',
        ]);
        emit(
          delivery,
          `${delivery.id} ${delivery.event} ${delivery.status} (${delivery.messageId})\n${attempts.length ? table(['ATTEMPT', 'AT', 'STATUS', 'TOOK', 'ERROR'], attempts) : '(no attempt yet)'}\n${delivery.payload ?? ''}`,
        );
        return 0;
      }
      const status = values.status;
      if (status !== undefined && !['pending', 'delivered', 'failed'].includes(status)) throw new UsageError('--status must be pending, delivered or failed');
      const rows = await services.webhooks.deliveries(communityId, webhookId(args[0]), {
        status,
        limit: values.limit === undefined ? 50 : positiveInteger(values.limit, '--limit'),
      });
      emit(
        rows,
        rows.length
          ? table(
              ['DELIVERY', 'EVENT', 'OCCURRED', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT ATTEMPT'],
              rows.map((d) => [
                d.id,
                d.event,
                d.occurredAt,
                d.status,
                String(d.attempts),
                d.lastError ?? (d.lastStatus === null ? '' : String(d.lastStatus)),
                d.nextAttemptAt ?? '',
              ]),
            )
          : '(none)',
      );
      return 0;
    },
    async redeliver(context) {
      const delivery = await context.services.webhooks.redeliver(await communityWriter(context), deliveryId(context.args[0]));
      context.emit(delivery, `Sending ${delivery.event} (${delivery.messageId}) again as ${delivery.id}, while \`hearth serve\` runs.`);
      return 0;
    },
    async replay(context) {
      const { values, args } = context;
      // A WHEN as `audit` and the prunes take it: a date, a date-time with its offset, or a duration back.
      const when = (value: string, what: string) => pointInTime(what, whenOption(value)!, new Date());
      const since = when(required(values.since, '--since'), '--since');
      const result = await context.services.webhooks.replay(
        await communityWriter(context),
        webhookId(args[0]),
        since,
        values.until === undefined ? undefined : when(values.until, '--until'),
      );
      context.emit(result, `${result.deliveries} events since ${result.since} will be sent again to ${result.webhookId}.`);
      return 0;
    },
    async prune({ services, values, emit }) {
      const pruned = await services.webhooks.prune(
        await communityOrAll(services, values.community),
        whenOption(required(values.before, '--before'))!,
        cliActor(),
      );
      emit(
        { before: pruned.before.toISOString(), deleted: pruned.deleted },
        `Deleted ${pruned.deleted} webhook events from before ${pruned.before.toISOString()}, with their deliveries.`,
      );
      return 0;
    },
  },
};

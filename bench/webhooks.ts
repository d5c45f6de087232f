import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { cliWriter } from '../src/core/writer.ts';
import type { DB } from '../src/db/schema.ts';
import { createJobQueue } from '../src/jobs/job-queue.ts';
import { createWebhookService } from '../src/modules/webhooks/index.ts';
import type { Services } from '../src/services.ts';
import { stubServer } from '../test/helpers/webhook-receiver.ts';
import type { ServerChild } from './ipc.ts';
import { createClient, measureThroughput, median, type Client } from './load.ts';
import type { Figure } from './report.ts';

/**
 * The webhook figures (docs/webhooks.md, docs/performance.md):
 * - delivery: events/s Hearth's delivery step sends to a local receiver (claim, sign, POST, record the
 *   outcome), against a bare HTTP client posting the same bodies to the same receiver with as many
 *   requests in flight (32) and nothing else; events made by batch pushes through the Hearth child and
 *   fanned out (rendered) beforehand, which is timed and printed apart;
 * - pushes: single pushes/s into the Hearth child while a webhook wants contact and activity events, against
 *   the same pushes with no webhook (what writing events costs the write path), in rotating rounds; and, as
 *   a diagnostic, the same pushes with the event triggers switched off (what a community without webhooks
 *   pays for them).
 */

export interface WebhooksContext {
  db: Kysely<DB>;
  services: Services;
  setup: { communityId: number; sourceId: number; token: string };
  hearth: ServerChild;
  /** Events per delivery round. */
  events: number;
  concurrency: number;
  seconds: number;
  rounds: number;
  log: (line: string) => void;
}

/** The row triggers that write events on the push path (migration 0039). */
const EVENT_TRIGGERS = [
  ['contacts', 'webhook_event_contact_inserted'],
  ['contacts', 'webhook_event_contact_updated'],
  ['activities', 'webhook_event_activity_inserted'],
  ['organizations', 'webhook_event_organization_inserted'],
  ['contact_merges', 'webhook_event_merge_inserted'],
  ['tag_assignments', 'webhook_event_tag_assigned'],
] as const;

/** Requests in flight, as the delivery step has (webhook.service.ts CONCURRENCY). */
const IN_FLIGHT = 32;

export function receiver() {
  let count = 0;
  const server = stubServer((_request, response) => {
    count += 1;
    response.writeHead(204).end();
  });
  return {
    count: () => count,
    start: async () => `${await server.start()}/hook`,
    stop: server.stop,
  };
}

/** Posts `bodies` to `url`, IN_FLIGHT at a time, over keep-alive connections: events/s. */
async function barePost(url: string, bodies: string[]): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        await new Promise<void>((resolve, reject) => {
          const request = http.request(
            url,
            { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
            (response) => {
              response.resume();
              response.on('end', () =>
                response.statusCode && response.statusCode < 300 ? resolve() : reject(new Error(`bare post answered ${response.statusCode}`)),
              );
            },
          );
          request.on('error', reject);
          request.end(body);
        });
      }
    }),
  );
  const rate = bodies.length / ((performance.now() - started) / 1000);
  agent.destroy();
  return rate;
}

let runs = 0;

export type WebhookService = ReturnType<typeof createWebhookService>;

/** A webhook service of the bench's own, allowed to reach the local receiver, stepping when the bench says. */
export function benchWebhookService(db: Kysely<DB>, services: Services): WebhookService {
  return createWebhookService({
    db,
    clock: systemClock,
    jobs: createJobQueue({ db, clock: systemClock }),
    filters: services.filters,
    representations: { contact: services.contacts.get, activity: services.activities.get, organization: services.organizations.get },
    allowPrivateAddresses: true,
  });
}

/**
 * One delivery round: a subscription to `url` for contact.created, `events` new people pushed through the
 * Hearth server at `hearthUrl` in batches of 1,000, their events fanned out while the subscription is
 * disabled (timed apart), then sent by the delivery step until none is pending. Events a second of each.
 */
export async function deliveryRound(round: {
  db: Kysely<DB>;
  hooks: WebhookService;
  client: Client;
  setup: { communityId: number; sourceId: number };
  hearthUrl: string;
  receiver: { count(): number };
  url: string;
  events: number;
}): Promise<{ id: number; delivered: number; fannedOut: number }> {
  const { db, hooks, client, setup, events } = round;
  const writer = cliWriter(setup.communityId);
  const pending = async (id: number) =>
    Number(
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from webhook_deliveries where community_id = ${setup.communityId} and subscription_id = ${id} and status = 'pending'`.execute(
          db,
        )
      ).rows[0]!.n,
    );
  const waiting = async () =>
    Number((await sql<{ n: number }>`select count(*)::int as n from webhook_events where fanned_out_at is null`.execute(db)).rows[0]!.n);
  const hook = await hooks.create(writer, { url: round.url, events: ['contact.created'] });
  const id = Number(hook.id.slice(3));
  // Its deliveries wait while it is disabled: the fan-out is timed apart from the sending.
  await hooks.disable(writer, id);
  const run = `${Date.now().toString(36)}${runs++}`;
  for (let start = 0; start < events; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, events - start) }, (_, i) => ({
      id: `wh-${run}-${start + i}`,
      fullName: `Webhook Bench ${start + i}`,
      email: `wh-${run}-${start + i}@example.org`,
    }));
    const response = await client.post(`${round.hearthUrl}/community/v1/source/${setup.sourceId}/users`, batch);
    if (response.status !== 202) throw new Error(`batch push answered ${response.status}: ${response.body.slice(0, 200)}`);
  }
  let started = performance.now();
  while ((await waiting()) > 0) await hooks.deliverNow();
  const fannedOut = events / ((performance.now() - started) / 1000);
  const made = await pending(id);
  if (made !== events) throw new Error(`expected ${events} deliveries, the fan-out made ${made}`);

  await hooks.enable(writer, id);
  const before = round.receiver.count();
  started = performance.now();
  while ((await pending(id)) > 0) await hooks.deliverNow();
  const delivered = events / ((performance.now() - started) / 1000);
  if (round.receiver.count() - before < events) throw new Error(`the receiver got ${round.receiver.count() - before} of ${events} deliveries`);
  return { id, delivered, fannedOut };
}

export async function measureWebhooks(context: WebhooksContext): Promise<{ figures: Figure[]; results: unknown }> {
  const { db, services, setup, hearth, log } = context;
  const writer = cliWriter(setup.communityId);
  const hooks = benchWebhookService(db, services);
  const target = receiver();
  const url = await target.start();
  const client = createClient({ token: setup.token, connections: 4 });

  log(`\nWebhook deliveries: ${context.rounds} rounds of ${context.events.toLocaleString('en')} events to a local receiver…`);
  const hearthRates: number[] = [];
  const bareRates: number[] = [];
  const fanOutRates: number[] = [];
  for (let round = 0; round < context.rounds; round++) {
    const { id, delivered, fannedOut } = await deliveryRound({
      db,
      hooks,
      client,
      setup,
      hearthUrl: hearth.url,
      receiver: target,
      url,
      events: context.events,
    });
    hearthRates.push(delivered);
    fanOutRates.push(fannedOut);
    const { rows } = await sql<{ payload: string }>`
      select e.payload from webhook_deliveries d join webhook_events e on e.community_id = d.community_id and e.id = d.event_id
      where d.community_id = ${setup.communityId} and d.subscription_id = ${id} order by d.id`.execute(db);
    bareRates.push(
      await barePost(
        url,
        rows.map((row) => row.payload),
      ),
    );
    await hooks.remove(writer, id);
    log(
      `  round ${round + 1}: Hearth ${hearthRates.at(-1)!.toFixed(0)} events/s, bare client ${bareRates.at(-1)!.toFixed(0)}/s (fan-out ${fanOutRates.at(-1)!.toFixed(0)} events/s)`,
    );
  }
  await target.stop();

  log(
    `\nPushes with a webhook wanting contact and activity events, and without: ${context.rounds} rounds of ${context.seconds} s each, ${context.concurrency} connections…`,
  );
  const pushUrl = `${hearth.url}/community/v1/source/${setup.sourceId}/user`;
  const pushRun = `${Date.now().toString(36)}${runs++}`;
  const pushes = (seconds: number) =>
    measureThroughput(pushUrl, {
      token: setup.token,
      concurrency: context.concurrency,
      seconds,
      post: { body: (n) => ({ id: `whp-${pushRun}-${n % 20_000}`, fullName: `Push ${n}`, titleAtCompany: `Title ${n}` }), status: 202 },
    });
  const withHook: number[] = [];
  const without: number[] = [];
  // Diagnostic (no goal): the same pushes with the event triggers switched off, as before migration 0029.
  const untriggered: number[] = [];
  const triggers = async (on: boolean) => {
    for (const [table, trigger] of EVENT_TRIGGERS)
      await sql`alter table ${sql.table(table)} ${on ? sql`enable` : sql`disable`} trigger ${sql.ref(trigger)}`.execute(db);
  };
  await pushes(Math.min(3, context.seconds));
  const order = ['without', 'with', 'untriggered'] as const;
  for (let round = 0; round < context.rounds; round++) {
    for (const which of order.map((_, i) => order[(i + round) % order.length]!)) {
      const hook =
        which === 'with'
          ? await hooks.create(writer, { url: 'https://hooks.example.org/bench', events: ['contact.created', 'contact.updated', 'activity.created'] })
          : null;
      if (which === 'untriggered') await triggers(false);
      try {
        const result = await pushes(context.seconds);
        (which === 'with' ? withHook : which === 'without' ? without : untriggered).push(result.perSecond);
      } finally {
        if (which === 'untriggered') await triggers(true);
        if (hook) await hooks.remove(writer, Number(hook.id.slice(3)));
      }
    }
    log(
      `  round ${round + 1}: with a webhook ${withHook.at(-1)!.toFixed(0)} pushes/s, without ${without.at(-1)!.toFixed(0)}/s, without the event triggers ${untriggered.at(-1)!.toFixed(0)}/s`,
    );
  }
  log(`  diagnostic (no goal): pushes without a webhook / without the event triggers: ${(median(without) / median(untriggered)).toFixed(2)}`);
  // The events of those pushes: no subscription is left to deliver them to.
  await sql`delete from webhook_events where community_id = ${setup.communityId}`.execute(db);

  const hearthRate = median(hearthRates);
  const bareRate = median(bareRates);
  const figures: Figure[] = [
    {
      name: `webhook deliveries, ${context.events} events, vs bare client`,
      measured: 'Hearth',
      value: hearthRate,
      baselineName: 'bare',
      baseline: bareRate,
      unit: 'items/s',
      ratio: hearthRate / bareRate,
      goal: { op: '>=', value: 0.5 },
    },
    {
      name: `pushes with a webhook, ${context.concurrency} connections, vs none`,
      measured: 'with',
      value: median(withHook),
      baselineName: 'none',
      baseline: median(without),
      unit: 'req/s',
      ratio: median(withHook) / median(without),
      goal: { op: '>=', value: 0.8 },
    },
  ];
  return { figures, results: { deliveries: { hearth: hearthRates, bare: bareRates, fanOut: fanOutRates }, pushes: { with: withHook, without, untriggered } } };
}

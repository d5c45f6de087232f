import type http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { call, freshDatabaseEnv, Processes, type Env } from '../helpers/process.ts';
import { stubServer, verifySignature, webhookMessage, type Received } from '../helpers/webhook-receiver.ts';

const CONTACTS = 20;

/**
 * A receiver that holds every request it gets without answering until told to answer (so the server can
 * be killed while its deliveries are in flight), and from then on answers 200 at once.
 */
function holdingReceiver() {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  let answering = false;
  let firstHeld: () => void;
  const holding = new Promise<void>((resolve) => (firstHeld = resolve));
  const server = stubServer((request, response) => {
    received.push(webhookMessage(request));
    if (answering) return void response.writeHead(200).end();
    held.push(response);
    firstHeld();
  });
  return {
    received,
    holding,
    answer() {
      answering = true;
      for (const response of held.splice(0)) response.destroy();
    },
    start: async () => `${await server.start()}/hook`,
    stop: server.stop,
  };
}

/**
 * Deliveries in flight when their server is killed with SIGKILL are sent again by the restarted server once
 * their lease runs out (twice HEARTH_WEBHOOK_TIMEOUT): every event reaches the receiver, signed (at least
 * once; a delivery the receiver got before the kill may come twice, with the same webhook-id).
 */
describe.each<Engine>(['pglite', 'postgres'])('webhook deliveries survive kill -9 of their server (%s)', (engine) => {
  const processes = new Processes();
  const receiver = holdingReceiver();
  let dropDatabase: (() => Promise<void>) | undefined;
  afterEach(() => processes.cleanup());
  afterAll(async () => {
    await receiver.stop();
    await dropDatabase?.();
  });

  it.skipIf(engine === 'postgres' && !process.env.TEST_DATABASE_URL)('loses no event', { timeout: 120_000 }, async () => {
    let env: Env;
    ({ env, drop: dropDatabase } = await freshDatabaseEnv(engine, processes));
    env = { ...env, HEARTH_ALLOW_PRIVATE_FETCH: 'true', HEARTH_WEBHOOK_TIMEOUT: '1' };
    const url = await receiver.start();
    const init = await processes.run(['init', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const { token, sourceId } = JSON.parse(init.stdout) as { token: string; sourceId: number };

    const first = await processes.serve(env);
    const added = await call(`${first.url}/api/v2/admin/webhooks`, { method: 'POST', token, body: { url, events: ['contact.created'] } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const { id: webhookId, secret } = (added.body as { data: { id: string; secret: string } }).data;
    const users = Array.from({ length: CONTACTS }, (_, index) => ({ id: `crash-${index}`, fullName: `Crash ${index}` }));
    const pushed = await call(`${first.url}/community/v1/source/${sourceId}/users`, { method: 'POST', token, body: users });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(202);

    // Deliveries are in flight, held by the receiver: kill the server now.
    await receiver.holding;
    first.process.kill('SIGKILL');
    await first.process.exited;
    const beforeRestart = receiver.received.length;
    expect(beforeRestart).toBeGreaterThan(0);
    receiver.answer();

    const second = await processes.serve(env);
    const deadline = Date.now() + 60_000;
    const distinct = () => new Set(receiver.received.map((message) => message.id)).size;
    while (distinct() < CONTACTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(distinct()).toBe(CONTACTS);
    expect(receiver.received.every((message) => verifySignature(secret, message))).toBe(true);
    const names = new Set(receiver.received.map((message) => (JSON.parse(message.body) as { data: { fullName: string } }).data.fullName));
    expect([...names].sort()).toEqual(users.map((user) => user.fullName).sort());

    // Every delivery ends delivered, the ones cut by the kill after a second attempt.
    const settled = async () => {
      const listed = await call(`${second.url}/api/v2/admin/webhooks/${webhookId}/deliveries?limit=100`, { token });
      return (listed.body as { data: { status: string; attempts: number }[] }).data;
    };
    while ((await settled()).some((delivery) => delivery.status !== 'delivered') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const deliveries = await settled();
    expect(deliveries).toHaveLength(CONTACTS);
    expect(deliveries.every((delivery) => delivery.status === 'delivered')).toBe(true);
    expect(deliveries.filter((delivery) => delivery.attempts >= 2).length).toBeGreaterThanOrEqual(1);
  });
});

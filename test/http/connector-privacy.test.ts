import { createHmac } from 'node:crypto';
import Type from 'typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { ConnectorKind, Headers } from '../../src/modules/connectors/index.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * An erasure reaches what a connector keeps of the person: the payloads of its stored deliveries that named
 * them (processed, or still waiting), and the platform user IDs it saw; later deliveries and syncs naming the
 * person store nothing and keep nothing. The kind here is the framework's own test platform ("ChatHub"):
 * a delivery is a message by one or more people, each with a platform user ID, a login and an address.
 */

const WEBHOOK_SECRET = 'whs-very-secret-5678';

interface Person {
  id: number;
  login: string;
  email?: string;
}
interface Message {
  id: number;
  by: Person[];
  text: string;
}

const pushOf = (message: Message, person: Person) => ({
  id: `message-${message.id}-${person.id}`,
  activityType: 'issue_comment',
  user: { id: String(person.id), username: person.login, github: person.login, ...(person.email ? { email: person.email } : {}) },
  content: message.text,
  timestamp: '2026-01-15T10:00:00Z',
});

/** What the sync's one stream reads (all in one page). */
let history: Message[] = [];

const header = (headers: Headers, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const chatHub: ConnectorKind<{ room: string }, { webhookSecret: string }> = {
  kind: 'github',
  platformName: 'ChatHub',
  settingsSchema: Type.Object({ room: Type.String() }),
  secretsSchema: Type.Object({ webhookSecret: Type.String({ minLength: 8 }) }),
  receiver: {
    async verify(raw, headers, secrets) {
      return header(headers, 'x-chat-signature') === createHmac('sha256', secrets.webhookSecret).update(raw).digest('hex');
    },
    deliveryId: (headers) => header(headers, 'x-chat-delivery') ?? null,
    eventOf: () => 'message',
    translate(delivery) {
      const message = delivery.body as Message;
      return { users: [], activities: message.by.map((person) => pushOf(message, person)), skipped: [] };
    },
  },
  async streams() {
    return ['messages'];
  },
  async page() {
    return {
      translation: { users: [], activities: history.flatMap((message) => message.by.map((person) => pushOf(message, person))), skipped: [] },
      checkpoint: {},
      done: true,
      total: history.length,
      records: history.length,
    };
  },
  async test() {
    return 'ok';
  },
};

const ann: Person = { id: 7, login: 'ann-codes', email: 'ann@example.org' };
const bob: Person = { id: 8, login: 'bob-builds', email: 'bob@example.org' };

describe.each(ENGINES)('connectors and erasure (%s)', (engine) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock('2026-01-15T12:00:00Z');
    history = [];
    t = await createTestApp(engine, { clock, connectorKinds: [chatHub as ConnectorKind<unknown, unknown>] });
  });
  afterEach(() => t.close());

  const worker = () => createWorker({ db: t.services.db, clock, queue: t.services.jobs });
  const deliveries = () =>
    t.services.db
      .selectFrom('connector_deliveries')
      .select(['delivery_id as deliveryId', 'payload', 'processed_at as processedAt', 'outcome'])
      .orderBy('id')
      .execute();
  const seen = async () =>
    (await t.services.db.selectFrom('connector_people').select('platform_user_id as id').orderBy('platform_user_id').execute()).map((row) => row.id);
  const messages = async () => (await t.services.db.selectFrom('activities').select('external_id as id').orderBy('external_id').execute()).map((row) => row.id);

  it("erases the person's deliveries and platform IDs, and keeps nothing of later deliveries or syncs naming them", async () => {
    const connector = (
      await t.send('POST', '/api/v2/admin/connectors', { kind: 'github', settings: { room: 'general' }, secrets: { webhookSecret: WEBHOOK_SECRET } })
    ).json().data;
    const path = new URL(connector.receiverUrl).pathname;
    const deliver = async (deliveryId: string, message: Message) => {
      const body = JSON.stringify(message);
      const answer = await t.app.inject({
        method: 'POST',
        url: path,
        headers: {
          'content-type': 'application/json',
          'x-chat-delivery': deliveryId,
          'x-chat-signature': createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex'),
        },
        payload: body,
      });
      expect(answer.statusCode).toBe(202);
      await t.services.connectors.settled();
    };

    await deliver('d-1', { id: 1, by: [ann], text: 'ann speaking' });
    await deliver('d-1b', { id: 10, by: [ann], text: 'ann kept before' });
    await deliver('d-2', { id: 2, by: [bob], text: 'bob speaking' });
    await t.services.connectors.processDeliveries();
    expect(await seen()).toEqual(['7', '8']);
    expect(await messages()).toEqual(['message-1-7', 'message-10-7', 'message-2-8']);
    // As a delivery processed before the people of deliveries were kept: read again to be found.
    await t.services.db.updateTable('connector_deliveries').set({ people: null }).where('delivery_id', '=', 'd-1b').execute();

    // Paused: these wait, one only about ann, one about both.
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/pause`, undefined);
    await deliver('d-3', { id: 3, by: [ann], text: 'ann again' });
    await deliver('d-4', { id: 4, by: [ann, bob], text: 'both of us' });

    expect((await t.send('DELETE', '/community/v1/user/ann@example.org', undefined)).statusCode).toBe(200);
    await worker().runUntilIdle();

    let stored = await deliveries();
    expect(stored.map((row) => [row.deliveryId, row.payload === '' ? 'erased' : 'kept', row.processedAt === null ? 'waiting' : 'processed'])).toEqual([
      ['d-1', 'erased', 'processed'],
      ['d-1b', 'erased', 'processed'],
      ['d-2', 'kept', 'processed'],
      ['d-3', 'erased', 'processed'],
      ['d-4', 'kept', 'waiting'],
    ]);
    expect(stored[0]!.outcome).toMatchObject({ activities: 1, payloadErased: true });
    expect(stored[1]!.outcome).toMatchObject({ activities: 1, payloadErased: true });
    expect(stored[3]!.outcome).toMatchObject({ activities: 0, payloadErased: true });
    expect(await seen()).toEqual(['8']);

    // Resumed: the delivery about both stores bob's message only, and its payload goes.
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/resume`, undefined);
    await t.services.connectors.settled();
    await t.services.connectors.processDeliveries();
    stored = await deliveries();
    expect(stored[4]).toMatchObject({
      deliveryId: 'd-4',
      payload: '',
      processedAt: expect.any(Date),
      outcome: expect.objectContaining({ activities: 1, suppressed: 1, payloadErased: true }),
    });

    // Later: the same platform ID under a new login, and the same login under another ID, store nothing and keep nothing.
    await deliver('d-5', { id: 5, by: [{ id: 7, login: 'ann-renamed' }], text: 'new name' });
    await deliver('d-6', { id: 6, by: [{ id: 70, login: 'ann-codes' }], text: 'new account' });
    await t.services.connectors.processDeliveries();
    stored = await deliveries();
    for (const row of stored.slice(5)) expect(row).toMatchObject({ payload: '', outcome: expect.objectContaining({ activities: 0, suppressed: 1 }) });
    expect(await messages()).toEqual(['message-1-7', 'message-10-7', 'message-2-8', 'message-4-8']);
    expect(await seen()).toEqual(['8']);
    const shown = (await t.get(`/api/v2/admin/connectors/${connector.id}`)).json().data;
    // Records stored: ann's first two messages and bob's two; nothing of what was suppressed.
    expect(shown.last24h).toEqual({ deliveries: 7, records: 4 });

    // A sync that reads her messages from the platform stores nothing of her and does not ask for her profile.
    history = [
      { id: 1, by: [ann], text: 'ann speaking' },
      { id: 9, by: [bob], text: 'bob in the history' },
    ];
    await t.send('POST', `/api/v2/admin/connectors/${connector.id}/sync`, undefined);
    await worker().runUntilIdle();
    expect(await seen()).toEqual(['8']);
    expect(await messages()).toEqual(['message-1-7', 'message-10-7', 'message-2-8', 'message-4-8', 'message-9-8']);
    const contents = await t.services.db.selectFrom('activities').select('content').where('external_id', '=', 'message-1-7').executeTakeFirstOrThrow();
    expect(contents.content).toBeNull();
    const all = JSON.stringify(await t.services.db.selectFrom('connector_deliveries').selectAll().execute());
    for (const trace of ['ann-codes', 'ann@example.org', 'ann speaking', 'ann kept before', 'ann again', 'ann-renamed']) expect(all).not.toContain(trace);
  });
});

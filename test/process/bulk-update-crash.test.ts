import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { openDatabase, type DatabaseTarget, type Engine } from '../../src/db/database.ts';
import { createServices } from '../../src/services.ts';
import { Processes, call, type Env } from '../helpers/process.ts';
import { createPostgresDatabase, ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

const CONTACTS = 100;
/** More updates than a run sends before the kill: each has a tag of its own. */
const UPDATES = 400;
/** Updates acknowledged before the kill is armed. */
const BEFORE_KILL = 15;

interface Listed {
  id: string;
  tags: string[];
  customFields: Record<string, { type: string; value: unknown }>;
}

/**
 * `kill -9` of a `hearth serve` in the middle of a stream of bulk updates: after the restart, each update is
 * entirely present or entirely absent. Update i assigns tag i to the same 100 contacts and sets their "Batch"
 * custom field to i, one update at a time; so the updates that took effect are 0..k for some k, each on all
 * 100 contacts, every contact's Batch is k, and every acknowledged update is among them.
 */
describe.each(ENGINES)('kill -9 during a stream of bulk updates (%s)', (engine: Engine) => {
  const processes = new Processes();
  let dropDatabase: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await processes.cleanup();
    await dropDatabase?.();
  });

  it('leaves each update entirely present or entirely absent, and the one cut off can be retried whole', async () => {
    let target: DatabaseTarget;
    let env: Env;
    if (engine === 'pglite') {
      const dataDir = processes.migratedDataDir();
      target = { engine: 'pglite', dataDir, command: 'test' };
      env = { HEARTH_DATA_DIR: dataDir, HEARTH_RATE_LIMIT: '1000000' };
    } else {
      const database = await createPostgresDatabase();
      dropDatabase = database.drop;
      target = { engine: 'postgres', url: database.url, poolSize: 2 };
      env = { DATABASE_URL: database.url, HEARTH_RATE_LIMIT: '1000000' };
    }

    // Before the server: the community, a token and a custom field, made through the services as `hearth init`
    // and `hearth custom-field add` make them; the tags as rows, as the stream needs hundreds.
    const prepared = await openDatabase(target);
    let setup: { communityId: number; sourceId: number; token: string };
    let batchField: string;
    const tags: string[] = [];
    try {
      const services = await createServices({
        db: prepared.db,
        clock: systemClock,
        config: { jwtSecret: null, publicUrl: 'http://127.0.0.1', rateLimit: { perToken: 1, perAddress: 1, windowSeconds: 60 } },
      });
      setup = await services.communities.init(cliActor());
      const field = await services.customFieldAdmin.create(cliWriter(setup.communityId), { name: 'Batch', entityTypes: ['contact'], valueType: 'int' });
      batchField = field.id;
      const rows = await prepared.db
        .insertInto('tags')
        .values(Array.from({ length: UPDATES }, (_, i) => ({ community_id: setup.communityId, name: `Batch ${i}`, entity_types: ['member'] })))
        .returning('id')
        .execute();
      tags.push(...rows.sort((a, b) => a.id - b.id).map((row) => `l_${row.id}`));
    } finally {
      await prepared.close();
    }

    const first = await processes.serve(env);
    const contactIds: string[] = [];
    for (let i = 0; i < CONTACTS; i++) {
      const pushed = await call(`${first.url}/community/v1/source/${setup.sourceId}/user`, {
        method: 'POST',
        token: setup.token,
        body: { id: `crash-${i}`, email: `crash-${i}@example.org`, fullName: `Crash ${i}` },
      });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(202);
      contactIds.push((pushed.body as { contactId: string }).contactId);
    }
    const bodyOf = (i: number) => ({
      contactIds,
      tagIdsToAdd: [tags[i]],
      customFields: [{ customFieldId: batchField, customFieldValue: { type: 'int', value: i } }],
    });

    // The stream: one update at a time, back to back; once enough are acknowledged, the server is killed
    // a moment later, while (almost surely) one is in flight.
    const acknowledged: number[] = [];
    let cutOff: number | null = null;
    let armed = false;
    for (let i = 0; i < UPDATES; i++) {
      if (acknowledged.length >= BEFORE_KILL && !armed) {
        armed = true;
        setTimeout(() => first.process.kill('SIGKILL'), Math.random() * 30);
      }
      let response: Awaited<ReturnType<typeof call>>;
      try {
        response = await call(`${first.url}/api/v2/contacts/bulk-update`, { method: 'POST', token: setup.token, body: bodyOf(i) });
      } catch {
        // The connection died with the server: nothing is promised about this update.
        cutOff = i;
        break;
      }
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      acknowledged.push(i);
    }
    expect(await first.process.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(cutOff).not.toBeNull();
    expect(acknowledged.length).toBeGreaterThanOrEqual(BEFORE_KILL);

    const second = await processes.serve(env);
    const state = async () => {
      const response = await call(`${second.url}/api/v2/contacts?limit=1000&cols=tags,${batchField}`, { token: setup.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      // The updated contacts, and the admin user's own (which no update names).
      const admin = ((await call(`${second.url}/api/v2/me`, { token: setup.token })).body as { data: { id: string } }).data.id;
      const contacts = (response.body as { data: Listed[] }).data.filter((contact) => contact.id !== admin);
      expect(contacts.map((contact) => contact.id).sort()).toEqual([...contactIds].sort());
      const holders = tags.map((tag) => contacts.filter((contact) => contact.tags.includes(tag)).length);
      const batches = new Set(contacts.map((contact) => JSON.stringify(contact.customFields[batchField]?.value ?? null)));
      return { holders, batches };
    };

    const after = await state();
    // Each update is on all contacts or on none.
    expect(after.holders.filter((count) => count !== 0 && count !== CONTACTS)).toEqual([]);
    const applied = after.holders.flatMap((count, i) => (count === CONTACTS ? [i] : []));
    // Every acknowledged update is there; beyond them, at most the one that was cut off.
    expect(applied.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(applied.length === acknowledged.length || (applied.length === acknowledged.length + 1 && applied.at(-1) === cutOff)).toBe(true);
    // The custom field of every contact is the last update's: no contact kept an earlier value.
    expect([...after.batches]).toEqual([String(applied.at(-1))]);

    // The update cut off, retried whole, completes (or changes nothing when it had committed).
    const retry = await call(`${second.url}/api/v2/contacts/bulk-update`, { method: 'POST', token: setup.token, body: bodyOf(cutOff!) });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const retried = await state();
    expect(retried.holders[cutOff!]).toBe(CONTACTS);
    expect([...retried.batches]).toEqual([String(cutOff)]);
  }, 300_000); // a limit against hangs only: an embedded database made, two server starts, 100 pushes, the stream
});

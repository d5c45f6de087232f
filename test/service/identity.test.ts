import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { CONTACT_REFERENCES } from '../../src/modules/identity/contact-merge.repository.ts';
import { normalizeEmail, normalizeHandle, type Identity } from '../../src/modules/identity/identity-values.ts';
import { recordPerson, resolvePerson, type PushOrigin } from '../../src/modules/identity/identity.service.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

function identity(normalized: ReturnType<typeof normalizeEmail>): Identity {
  if (!normalized.ok) throw new Error('test identity did not normalize');
  return normalized.identity;
}

/**
 * The identity service on its own, without HTTP: resolution in the order docs/behaviour.md gives (Ingestion),
 * merges into the oldest contact with their reason, and the one list of tables that point at a contact.
 */
describe.each(ENGINES)('identity service (%s)', (engine) => {
  let t: TestApp;
  let origin: PushOrigin;
  const ada = identity(normalizeEmail('Ada@Example.com'));
  const adaGithub = identity(normalizeHandle('github', 'ada-l'));

  beforeAll(async () => {
    t = await createTestApp(engine);
    origin = { communityId: t.communityId, sourceId: t.sourceId, now: new Date('2026-06-01T00:00:00Z') };
  });
  afterAll(() => t.close());

  const inTransaction = <T>(work: (trx: Transaction<DB>) => Promise<T>) => t.services.db.transaction().execute(work);

  async function newContact(name: string, createdAt: Date): Promise<number> {
    const row = await t.services.db
      .insertInto('contacts')
      .values({ community_id: t.communityId, name, created_at: createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it("knows nobody at first, then finds the contact by the sender's ID or by an identity", async () => {
    const person = { externalId: 'u-1', identities: [ada] };
    expect(await inTransaction((trx) => resolvePerson(trx, origin, person))).toEqual({ kind: 'unknown' });
    const contactId = await newContact('Ada', new Date('2026-01-01T00:00:00Z'));
    await inTransaction((trx) => recordPerson(trx, origin, contactId, { ...person, profile: { fullName: 'Ada' } }));

    const bySender = await inTransaction((trx) => resolvePerson(trx, origin, { externalId: 'u-1', identities: [] }));
    expect(bySender).toEqual({ kind: 'known', contactId, merged: [], withheld: [], warnings: [] });
    const byEmail = await inTransaction((trx) => resolvePerson(trx, origin, { externalId: 'someone-else', identities: [ada] }));
    expect(byEmail).toEqual({ kind: 'known', contactId, merged: [], withheld: [], warnings: [] });
  });

  it('merges the contacts a push shows to be one person into the oldest, and records why', async () => {
    const older = await newContact('Older', new Date('2025-01-01T00:00:00Z'));
    const newer = await newContact('Newer', new Date('2026-02-01T00:00:00Z'));
    const email = identity(normalizeEmail('grace@example.org'));
    const github = identity(normalizeHandle('github', 'grace-h'));
    await inTransaction(async (trx) => {
      await recordPerson(trx, origin, newer, { externalId: 'g-new', identities: [email], profile: {} });
      await recordPerson(trx, origin, older, { externalId: 'g-old', identities: [github], profile: {} });
    });

    const resolved = await inTransaction((trx) => resolvePerson(trx, origin, { externalId: 'g-3', identities: [email, github] }));
    expect(resolved).toEqual({ kind: 'known', contactId: older, merged: [newer], withheld: [], warnings: [] });

    const merge = await t.services.db
      .selectFrom('contact_merges')
      .select(['survivor_id as survivorId', 'reason', 'identity_type as identityType', 'identity_value as identityValue'])
      .where('community_id', '=', t.communityId)
      .where('merged_id', '=', newer)
      .executeTakeFirstOrThrow();
    expect(merge).toEqual({
      survivorId: older,
      reason: expect.stringContaining('grace@example.org'),
      identityType: 'email',
      identityValue: 'grace@example.org',
    });
    // The merged contact's identities and profile moved: both now lead to the survivor.
    expect(await inTransaction((trx) => resolvePerson(trx, origin, { externalId: 'g-new', identities: [] }))).toEqual({
      kind: 'known',
      contactId: older,
      merged: [],
      withheld: [],
      warnings: [],
    });
    const left = await t.services.db.selectFrom('contacts').select('id').where('community_id', '=', t.communityId).where('id', '=', newer).execute();
    expect(left).toEqual([]);
  });

  it('never resolves through the profile of a contact erased on request', async () => {
    const erased = await newContact('Anonymized contact', new Date('2026-01-01T00:00:00Z'));
    await inTransaction((trx) => recordPerson(trx, origin, erased, { externalId: 'gone-1', identities: [adaGithub], profile: {} }));
    await t.services.db.updateTable('contacts').set({ anonymized_at: new Date() }).where('community_id', '=', t.communityId).where('id', '=', erased).execute();
    expect(await inTransaction((trx) => resolvePerson(trx, origin, { externalId: 'gone-1', identities: [] }))).toEqual({ kind: 'erased' });
  });

  it('lists every table that points at a contact', async () => {
    // Every column that can name a contact: contact_id anywhere, and the generic entity/target references.
    const { rows } = await sql<{ table: string; column: string }>`
      select table_name as "table", column_name as "column" from information_schema.columns
      where table_schema = current_schema() and column_name in ('contact_id', 'entity_id', 'target_id', 'survivor_id')
      order by 1, 2`.execute(t.services.db);
    const listed = new Set<string>([
      ...CONTACT_REFERENCES.moved.map(([table]) => table),
      ...CONTACT_REFERENCES.keyed.map(([table]) => table),
      CONTACT_REFERENCES.memberships,
      CONTACT_REFERENCES.associations,
      CONTACT_REFERENCES.merges,
      CONTACT_REFERENCES.neverMerge,
      CONTACT_REFERENCES.suggestions,
      ...CONTACT_REFERENCES.recorded,
    ]);
    const unlisted = rows.filter((row) => !listed.has(row.table));
    expect(unlisted).toEqual([]);
  });
});

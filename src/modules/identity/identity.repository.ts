import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { erasedExternalId, isErasedExternalId, type Identity, type IdentityType } from './identity-values.ts';
import type { Executor } from '../../core/executor.ts';
import { jsonRow } from '../../core/json-rows.ts';
import type { Lookup, Write } from '../../core/lookups.ts';

/** The contacts holding any of these identities (type and match key), one row per identity found. */
export async function findIdentityOwners(
  db: Executor,
  communityId: number,
  identities: { type: string; value: string }[],
): Promise<{ type: string; value: string; contactId: number }[]> {
  if (identities.length === 0) return [];
  const result = await sql<{ type: string; value: string; contactId: number }>`
    select i.type, i.value, i.contact_id as "contactId"
    from unnest(${identities.map((identity) => identity.type)}::text[], ${identities.map((identity) => identity.value)}::text[]) as u(type, value)
    join contact_identities i on i.community_id = ${communityId} and i.type = u.type and i.value = u.value
    order by i.contact_id`.execute(db);
  return result.rows;
}

/**
 * The contact the sender's ID in this source leads to, and whether it was anonymized on request. An erased
 * profile keeps only the hash of its ID, which is looked up too.
 */
export async function findProfileOwner(trx: Executor, communityId: number, sourceId: number, externalId: string) {
  const row = await trx
    .selectFrom('source_profiles as p')
    .innerJoin('contacts as c', (join) => join.onRef('c.community_id', '=', 'p.community_id').onRef('c.id', '=', 'p.contact_id'))
    .select(['p.contact_id as contactId', 'c.anonymized_at as anonymizedAt'])
    .where('p.community_id', '=', communityId)
    .where('p.source_id', '=', sourceId)
    .where('p.external_id', 'in', [externalId, erasedExternalId(externalId)])
    .executeTakeFirst();
  return row ? { contactId: row.contactId, anonymized: row.anonymizedAt !== null } : null;
}

/**
 * Adds identities the contact does not hold yet. A concurrent push that claimed one of them first makes
 * this fail with a unique violation: the caller retries the whole push, which then finds that owner.
 */
export async function insertIdentities(
  trx: Transaction<DB>,
  communityId: number,
  contactId: number,
  sender: { sourceId: number; senderId: string },
  identities: Identity[],
) {
  if (identities.length === 0) return;
  await sql`
    insert into contact_identities (community_id, type, value, display_value, contact_id, source_id, sender_id)
    select ${communityId}, t.type, t.value, t.display, ${contactId}, ${sender.sourceId}, ${sender.senderId}
    from unnest(${identities.map((i) => i.type)}::text[], ${identities.map((i) => i.value)}::text[], ${identities.map((i) => i.display)}::text[])
      as t(type, value, display)
    where not exists (
      select 1 from contact_identities c
      where c.community_id = ${communityId} and c.type = t.type and c.value = t.value and c.contact_id = ${contactId}
    )
  `.execute(trx);
}

export async function upsertSourceProfile(
  trx: Transaction<DB>,
  profile: { communityId: number; sourceId: number; externalId: string; contactId: number; fields: Record<string, unknown>; now: Date },
) {
  await trx
    .insertInto('source_profiles')
    .values({
      community_id: profile.communityId,
      source_id: profile.sourceId,
      external_id: profile.externalId,
      contact_id: profile.contactId,
      fields: JSON.stringify(profile.fields),
      updated_at: profile.now,
    })
    .onConflict((oc) =>
      oc.columns(['community_id', 'source_id', 'external_id']).doUpdateSet({
        contact_id: profile.contactId,
        // The latest push from a source wins for that source; fields it leaves out keep their values.
        fields: sql`source_profiles.fields || excluded.fields`,
        updated_at: profile.now,
      }),
    )
    .execute();
}

/** Locks the contacts in ID order (so concurrent merges cannot deadlock) and returns those that still exist. */
export async function lockContacts(trx: Transaction<DB>, communityId: number, contactIds: number[]) {
  const rows = await sql<{ id: number; createdAt: Date }>`
    select id, created_at as "createdAt" from contacts
    where community_id = ${communityId} and id = any(${contactIds}::bigint[])
    order by id
    for update
  `.execute(trx);
  return rows.rows;
}

/** The contacts holding the identity, or showing the address as their primary email. */
export async function findContactsOf(db: Kysely<DB>, communityId: number, identity: Identity): Promise<number[]> {
  const byIdentity = db
    .selectFrom('contact_identities')
    .select('contact_id as id')
    .where('community_id', '=', communityId)
    .where('type', '=', identity.type)
    .where('value', '=', identity.value);
  const addresses = identity.type === 'email' ? [identity.value, identity.display.toLowerCase()] : [];
  const rows =
    addresses.length === 0
      ? await byIdentity.execute()
      : await byIdentity
          .union(
            db
              .selectFrom('contacts')
              .select('id')
              .where('community_id', '=', communityId)
              .where(sql<string>`lower(btrim(primary_email))`, 'in', addresses),
          )
          .execute();
  return [...new Set(rows.map((row) => row.id))].sort((a, b) => a - b);
}

export async function identitiesOf(trx: Transaction<DB>, communityId: number, contactId: number) {
  return trx
    .selectFrom('contact_identities')
    .select(['type', 'value', 'display_value as display'])
    .where('community_id', '=', communityId)
    .where('contact_id', '=', contactId)
    .$narrowType<{ type: IdentityType }>()
    .execute();
}

export async function deleteIdentities(trx: Transaction<DB>, communityId: number, contactId: number): Promise<number> {
  const result = await trx.deleteFrom('contact_identities').where('community_id', '=', communityId).where('contact_id', '=', contactId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Clears the fields each source last pushed about the contact, and replaces every external ID with its
 * hash: a sender's own user ID (`u-4711`) identifies the person as much as an address does. The row stays,
 * so a later push with the same ID still finds the anonymized contact (`findProfileOwner`) and stores
 * nothing. Returns how many profiles were erased.
 */
export async function eraseSourceProfiles(trx: Transaction<DB>, communityId: number, contactId: number, now: Date): Promise<number> {
  const profiles = await trx
    .updateTable('source_profiles')
    .set({ fields: '{}', updated_at: now })
    .where('community_id', '=', communityId)
    .where('contact_id', '=', contactId)
    .returning(['source_id as sourceId', 'external_id as externalId'])
    .execute();
  for (const profile of profiles) {
    if (isErasedExternalId(profile.externalId)) continue;
    await trx
      .updateTable('source_profiles')
      .set({ external_id: erasedExternalId(profile.externalId) })
      .where('community_id', '=', communityId)
      .where('source_id', '=', profile.sourceId)
      .where('external_id', '=', profile.externalId)
      .execute();
  }
  return profiles.length;
}

/** Whom the senders' IDs and identities of a batch of people lead to (ownersOf). */
export interface Owners {
  /** Keyed `source\0id` (profileKey), with whether the contact was erased. */
  profiles: Map<string, { contactId: number; anonymized: boolean }>;
  identities: { type: string; value: string; contactId: number }[];
}

/**
 * What resolvePeople reads, as a lookup that can share a statement with others (readTogether): whom each
 * sender's ID (in its source) leads to, as findProfileOwner, and which contact holds each identity, as
 * findIdentityOwners.
 */
export function ownersOf(communityId: number, keys: { sourceId: number; externalId: string }[], identities: { type: string; value: string }[]): Lookup<Owners> {
  return {
    rows:
      keys.length === 0 && identities.length === 0
        ? null
        : sql`
          select u.n, p.contact_id as "contactId", c.anonymized_at is not null as anonymized, null::text as type, null::text as value
          from ${profilesOfKeys(communityId, keys)}
          join contacts c on c.community_id = p.community_id and c.id = p.contact_id
          union all
          select null, i.contact_id, false, i.type, i.value
          from ${holdersOfIdentities(communityId, identities)}`,
    read(rows) {
      const owners: Owners = { profiles: new Map(), identities: [] };
      for (const json of rows) {
        const row = ownerRow(json);
        if (row.n === null) {
          owners.identities.push({ type: row.type!, value: row.value!, contactId: row.contactId });
          continue;
        }
        const key = keys[row.n]!;
        owners.profiles.set(profileKey(key.sourceId, key.externalId), { contactId: row.contactId, anonymized: row.anonymized });
      }
      return owners;
    },
  };
}

// A profile's owner (n: the key's ordinal) or an identity's holder (type and value), in one union of rows.
const ownerRow = jsonRow('owner', {
  n: 'integer or null',
  contactId: 'integer',
  anonymized: 'boolean',
  type: 'string or null',
  value: 'string or null',
});

/**
 * The SQL of the contact IDs these senders' IDs (in their sources) and identities lead to, as ownersOf reads
 * them: one column, `contact_id`, for a lookup that locks those contacts in the same statement. Null when
 * there is nothing to look up.
 */
export function ownerIds(
  communityId: number,
  keys: { sourceId: number; externalId: string }[],
  identities: { type: string; value: string }[],
): RawBuilder<unknown> | null {
  if (keys.length === 0 && identities.length === 0) return null;
  return sql`
    select p.contact_id from ${profilesOfKeys(communityId, keys)}
    union
    select i.contact_id from ${holdersOfIdentities(communityId, identities)}`;
}

/**
 * The source profiles of senders' IDs, as `u` (with `n`, the key's index) joined to `p`. Each key twice, as
 * sent and as erasure leaves it, so that every lookup is one equality on the key.
 */
function profilesOfKeys(communityId: number, keys: { sourceId: number; externalId: string }[]): RawBuilder<unknown> {
  const variants = keys.flatMap((key, index) => [
    { n: index, sourceId: key.sourceId, externalId: key.externalId },
    { n: index, sourceId: key.sourceId, externalId: erasedExternalId(key.externalId) },
  ]);
  return sql`unnest(${variants.map((v) => v.n)}::int[], ${variants.map((v) => v.sourceId)}::bigint[], ${variants.map((v) => v.externalId)}::text[])
      as u(n, source_id, external_id)
    join source_profiles p on p.community_id = ${communityId} and p.source_id = u.source_id and p.external_id = u.external_id`;
}

/** The identities' rows, as `u` joined to `i` (each holds its contact). */
function holdersOfIdentities(communityId: number, identities: { type: string; value: string }[]): RawBuilder<unknown> {
  return sql`unnest(${identities.map((identity) => identity.type)}::text[], ${identities.map((identity) => identity.value)}::text[]) as u(type, value)
    join contact_identities i on i.community_id = ${communityId} and i.type = u.type and i.value = u.value`;
}

export function profileKey(sourceId: number, externalId: string): string {
  return `${sourceId}\u0000${externalId}`;
}

/**
 * What recordPerson writes, for many people, as two writes for the caller to run with its others
 * (writeTogether): the identities their contacts do not hold yet (each identity given once; one held by
 * another contact fails with a unique violation, as there), and each source's profile (each (source,
 * sender's ID) given once; the fields it sends replace those it sent).
 */
export function peopleWrites(
  communityId: number,
  people: {
    identities: { contactId: number; sourceId: number; senderId: string; identity: Identity }[];
    profiles: { sourceId: number; externalId: string; contactId: number; fields: Record<string, unknown> }[];
  },
  now: Date,
): Write[] {
  const { identities: ids, profiles } = people;
  return [
    ids.length === 0
      ? null
      : sql`
        insert into contact_identities (community_id, type, value, display_value, contact_id, source_id, sender_id)
        select ${communityId}, t.type, t.value, t.display, t.contact_id, t.source_id, t.sender_id
        from unnest(${ids.map((row) => row.identity.type)}::text[], ${ids.map((row) => row.identity.value)}::text[],
          ${ids.map((row) => row.identity.display)}::text[], ${ids.map((row) => row.contactId)}::bigint[], ${ids.map((row) => row.sourceId)}::bigint[],
          ${ids.map((row) => row.senderId)}::text[])
          as t(type, value, display, contact_id, source_id, sender_id)
        where not exists (
          select 1 from contact_identities c
          where c.community_id = ${communityId} and c.type = t.type and c.value = t.value and c.contact_id = t.contact_id
        )`,
    profiles.length === 0
      ? null
      : sql`
        insert into source_profiles (community_id, source_id, external_id, contact_id, fields, updated_at)
        select ${communityId}, t.source_id, t.external_id, t.contact_id, t.fields::jsonb, ${now}
        from unnest(${profiles.map((row) => row.sourceId)}::bigint[], ${profiles.map((row) => row.externalId)}::text[],
          ${profiles.map((row) => row.contactId)}::bigint[], ${profiles.map((row) => JSON.stringify(row.fields))}::text[]) as t(source_id, external_id, contact_id, fields)
        on conflict (community_id, source_id, external_id) do update set
          contact_id = excluded.contact_id, fields = source_profiles.fields || excluded.fields, updated_at = excluded.updated_at`,
  ];
}

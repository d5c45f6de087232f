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
export async function insertIdentities(trx: Transaction<DB>, communityId: number, contactId: number, sourceId: number, identities: Identity[]) {
  if (identities.length === 0) return;
  await sql`
    insert into contact_identities (community_id, type, value, display_value, contact_id, source_id)
    select ${communityId}, t.type, t.value, t.display, ${contactId}, ${sourceId}
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

/**
 * Every table whose rows point at a contact, by how a merge moves them to the survivor. Nothing else may
 * name a contact: test/service/identity.test.ts checks the schema against this list, so a new table
 * that points at contacts is moved by merges (and considered by erasure) or the test says so.
 */
export const CONTACT_REFERENCES = {
  /** A column naming the contact: every row moves to the survivor. */
  moved: [
    ['contact_identities', 'contact_id'],
    ['source_profiles', 'contact_id'],
    ['activities', 'contact_id'],
    ['website_visits', 'contact_id'],
    ['website_visitors', 'contact_id'],
    ['app_users', 'contact_id'],
  ],
  /** About an entity (`entity_type`, `entity_id`): the merged contact's row moves unless the survivor has its own of that key. */
  keyed: [
    ['tag_assignments', 'tag_id'],
    ['custom_field_values', 'custom_field_id'],
    ['lead_scores', 'score_id'],
    // A mark to score the contact again (one per contact: its key is the entity type).
    ['lead_score_dirty', 'entity_type'],
  ],
  /** Members of a contact segment (`entity_id`), kept once per segment. */
  memberships: 'segment_memberships',
  /** Objects linked through a contact association (`target_id`), kept once per object and association. */
  associations: 'object_associations',
  /** Earlier merges into the merged contact (`survivor_id`) now resolve to the survivor. */
  merges: 'contact_merges',
  /**
   * What happened to a contact, recorded under the ID it had then (webhook events, `entity_id`): not moved,
   * as a subscriber was told of it under that ID; `contact.merged` tells it of the merge.
   */
  recorded: ['webhook_events'],
} as const;

/**
 * Both contacts' jobs, newest first (the survivor's first on a tie), at most 20. When the survivor has a
 * current job, the merged contact's current one ends at the merge: a person holds one current job, and the
 * survivor's title and company win. If the survivor had none, the merged contact's current job is the one
 * its title and company now name, and the history trigger (migration 0021) leaves it as it is.
 */
function mergedJobHistory(now: Date) {
  const day = now.toISOString().slice(0, 10);
  return sql`(
    select coalesce(jsonb_agg(e order by e ->> 'startDate' desc, k), '[]'::jsonb)
    from (
      select e, k from (
        select e, k from jsonb_array_elements(s.job_history) with ordinality as x(e, k)
        union all
        select case when e ->> 'endDate' is null and s.job_history -> 0 ->> 'endDate' is null and jsonb_array_length(s.job_history) > 0
                 then jsonb_set(e, '{endDate}', to_jsonb(${day}::text)) else e end, 1000 + k
        from jsonb_array_elements(m.job_history) with ordinality as y(e, k)
      ) jobs order by e ->> 'startDate' desc, k limit 20
    ) kept)`;
}

/**
 * Merges `mergedId` into `survivorId`: everything that pointed at the merged contact moves to the survivor
 * (memberships, tags, custom values and scores where the survivor has none of its own), the survivor's
 * empty fields take the merged contact's values, the merged row is deleted, and the merge is recorded, so
 * the merged ID keeps resolving, to the survivor, with the reason.
 */
export async function mergeContacts(
  trx: Transaction<DB>,
  merge: { communityId: number; survivorId: number; mergedId: number; reason: string; identity: Identity | null; sourceId: number; now: Date },
) {
  const { communityId: c, survivorId: s, mergedId: m } = merge;
  for (const [table, column] of CONTACT_REFERENCES.moved) {
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${s} where community_id = ${c} and ${sql.ref(column)} = ${m}`.execute(trx);
  }
  await sql`
    insert into segment_memberships (community_id, segment_id, entity_id, status_id, added_at)
    select sm.community_id, sm.segment_id, ${s}, sm.status_id, sm.added_at from segment_memberships sm
    join segments g on g.community_id = sm.community_id and g.id = sm.segment_id and g.entity_type = 'contact'
    where sm.community_id = ${c} and sm.entity_id = ${m}
    on conflict do nothing`.execute(trx);
  await sql`
    delete from segment_memberships sm using segments g
    where sm.community_id = ${c} and sm.entity_id = ${m}
      and g.community_id = sm.community_id and g.id = sm.segment_id and g.entity_type = 'contact'`.execute(trx);
  for (const [table, key] of CONTACT_REFERENCES.keyed) {
    await sql`
      update ${sql.table(table)} t set entity_id = ${s}
      where t.community_id = ${c} and t.entity_type = 'contact' and t.entity_id = ${m}
        and not exists (
          select 1 from ${sql.table(table)} o
          where o.community_id = t.community_id and o.entity_type = 'contact' and o.entity_id = ${s}
            and ${sql.ref(`o.${key}`)} = ${sql.ref(`t.${key}`)}
        )`.execute(trx);
    await sql`delete from ${sql.table(table)} where community_id = ${c} and entity_type = 'contact' and entity_id = ${m}`.execute(trx);
  }
  // An object linked to both contacts through one association keeps one link: the survivor's.
  await sql`
    delete from object_associations a
    using object_type_assocs t
    where a.community_id = ${c} and a.target_id = ${m}
      and t.community_id = a.community_id and t.id = a.assoc_id and t.target_entity = 'contact'
      and exists (
        select 1 from object_associations o
        where o.community_id = a.community_id and o.object_id = a.object_id and o.assoc_id = a.assoc_id and o.target_id = ${s}
      )`.execute(trx);
  await sql`
    update object_associations a set target_id = ${s}
    from object_type_assocs t
    where a.community_id = ${c} and a.target_id = ${m}
      and t.community_id = a.community_id and t.id = a.assoc_id and t.target_entity = 'contact'`.execute(trx);
  await sql`
    update contacts s set
      full_name = coalesce(s.full_name, m.full_name), username = coalesce(s.username, m.username),
      avatar_url = coalesce(s.avatar_url, m.avatar_url), bio = coalesce(s.bio, m.bio),
      primary_email = coalesce(s.primary_email, m.primary_email), title = coalesce(s.title, m.title),
      role = coalesce(s.role, m.role), company_name = coalesce(s.company_name, m.company_name),
      company_website = coalesce(s.company_website, m.company_website),
      organization_id = coalesce(s.organization_id, m.organization_id),
      city = coalesce(s.city, m.city), region = coalesce(s.region, m.region), country = coalesce(s.country, m.country),
      country_code = coalesce(s.country_code, m.country_code), world_region = coalesce(s.world_region, m.world_region),
      raw_location = coalesce(s.raw_location, m.raw_location),
      phone_numbers = case when s.phone_numbers = '[]'::jsonb then m.phone_numbers else s.phone_numbers end,
      name = case when s.full_name is null and s.name = 'Unknown' then m.name else s.name end,
      job_history = ${mergedJobHistory(merge.now)},
      updated_at = ${merge.now}
    from contacts m
    where s.community_id = ${c} and s.id = ${s} and m.community_id = ${c} and m.id = ${m}`.execute(trx);
  // Earlier merges into the merged contact now resolve to the survivor directly.
  await sql`update contact_merges set survivor_id = ${s} where community_id = ${c} and survivor_id = ${m}`.execute(trx);
  await sql`delete from contacts where community_id = ${c} and id = ${m}`.execute(trx);
  await trx
    .insertInto('contact_merges')
    .values({
      community_id: c,
      merged_id: m,
      survivor_id: s,
      reason: merge.reason,
      identity_type: merge.identity?.type ?? null,
      identity_value: merge.identity?.display ?? null,
      source_id: merge.sourceId,
      merged_at: merge.now,
    })
    .execute();
}

/** The contacts merged into a survivor (directly or through another merged contact), newest first. */
export async function mergesInto(db: Executor, communityId: number, survivorId: number) {
  return db
    .selectFrom('contact_merges')
    .select(['merged_id as mergedId', 'reason', 'identity_type as identityType', 'source_id as sourceId', 'merged_at as mergedAt'])
    .where('community_id', '=', communityId)
    .where('survivor_id', '=', survivorId)
    .orderBy('merged_at', 'desc')
    .orderBy('merged_id', 'desc')
    .execute();
}

/** The live contact an ID names: itself, or the survivor it was merged into. */
export async function resolveContactId(db: Executor, communityId: number, contactId: number): Promise<number | null> {
  const row = await sql<{ id: number }>`
    select id from contacts where community_id = ${communityId} and id = ${contactId}
    union all
    select survivor_id from contact_merges where community_id = ${communityId} and merged_id = ${contactId}
    limit 1`.execute(db);
  return row.rows[0]?.id ?? null;
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
    identities: { contactId: number; sourceId: number; identity: Identity }[];
    profiles: { sourceId: number; externalId: string; contactId: number; fields: Record<string, unknown> }[];
  },
  now: Date,
): Write[] {
  const { identities: ids, profiles } = people;
  return [
    ids.length === 0
      ? null
      : sql`
        insert into contact_identities (community_id, type, value, display_value, contact_id, source_id)
        select ${communityId}, t.type, t.value, t.display, t.contact_id, t.source_id
        from unnest(${ids.map((row) => row.identity.type)}::text[], ${ids.map((row) => row.identity.value)}::text[],
          ${ids.map((row) => row.identity.display)}::text[], ${ids.map((row) => row.contactId)}::bigint[], ${ids.map((row) => row.sourceId)}::bigint[])
          as t(type, value, display, contact_id, source_id)
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

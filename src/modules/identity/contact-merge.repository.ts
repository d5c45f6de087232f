import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Executor } from '../../core/executor.ts';
import type { DB } from '../../db/schema.ts';
import type { Identity } from './identity-values.ts';

/**
 * Every table whose rows point at a contact, by how a merge moves them to the survivor and an undone merge
 * moves them back. Nothing else may name a contact: test/service/identity.test.ts checks the schema against
 * this list, so a new table that points at contacts is moved by merges (and considered by erasure and by
 * unmerge) or the test says so.
 */
export const CONTACT_REFERENCES = {
  /**
   * A column naming the contact: every row moves to the survivor. The key columns name each row in a merge's
   * snapshot, so that an undone merge finds the rows the merged contact brought.
   */
  moved: [
    ['contact_identities', 'contact_id', ['type', 'value']],
    ['source_profiles', 'contact_id', ['source_id', 'external_id']],
    ['activities', 'contact_id', ['id']],
    ['website_visits', 'contact_id', ['id']],
    ['website_visitors', 'contact_id', ['anonymous_id']],
    ['app_users', 'contact_id', ['id']],
  ],
  /**
   * About an entity (`entity_type`, `entity_id`): the merged contact's row moves unless the survivor has its
   * own of that key. An undone merge gives the merged contact its rows back (while the key's own record, the
   * table named third, still exists) and takes from the survivor those it got only from the merged one.
   */
  keyed: [
    ['tag_assignments', 'tag_id', 'tags'],
    ['custom_field_values', 'custom_field_id', 'custom_fields'],
    ['lead_scores', 'score_id', 'lead_score_definitions'],
    // A mark to score the contact again (one per contact: its key is the entity type); both sides of an
    // undone merge are marked anew rather than given their marks back.
    ['lead_score_dirty', 'entity_type', null],
  ],
  /** Members of a contact segment (`entity_id`), kept once per segment. */
  memberships: 'segment_memberships',
  /** Objects linked through a contact association (`target_id`), kept once per object and association. */
  associations: 'object_associations',
  /** Earlier merges into the merged contact (`survivor_id`) now resolve to the survivor. */
  merges: 'contact_merges',
  /** Pairs that are not one person (`contact_id`, `other_id`): the survivor takes the merged contact's pairs. */
  neverMerge: 'contact_never_merge',
  /**
   * Likely duplicates (`contact_id`, `other_id`): the merged contact's go with it (the key cascades), and the
   * background step suggests the survivor's pairs anew from what it now holds.
   */
  suggestions: 'contact_merge_suggestions',
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
 * What the merged contact brings to a merge, as an undone merge needs it: its row, the survivor's row before
 * the merge (whose empty fields the merge fills), the keys of the rows it has in every table a merge moves,
 * whole rows where the survivor's own may win (tags, custom values, scores, memberships, object links) with
 * the keys the survivor had itself, the merges into it and its never-merge pairs.
 */
function snapshotOf(c: number, s: number, m: number): RawBuilder<unknown> {
  const moved = CONTACT_REFERENCES.moved.map(
    ([table, column, keys]) => sql`${sql.lit(table)}, (
      select coalesce(jsonb_agg(jsonb_build_array(${sql.join(keys.map((key) => sql.ref(`x.${key}`)))})), '[]'::jsonb)
      from ${sql.table(table)} x where x.community_id = ${c} and ${sql.ref(`x.${column}`)} = ${m})`,
  );
  const keyed = CONTACT_REFERENCES.keyed.map(
    ([table, key]) => sql`${sql.lit(table)}, jsonb_build_object(
      'rows', (select coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb) from ${sql.table(table)} x
               where x.community_id = ${c} and x.entity_type = 'contact' and x.entity_id = ${m}),
      'survivorKeys', (select coalesce(jsonb_agg(${sql.ref(`x.${key}`)}), '[]'::jsonb) from ${sql.table(table)} x
               where x.community_id = ${c} and x.entity_type = 'contact' and x.entity_id = ${s}))`,
  );
  const members = (id: number) => sql`segment_memberships x
    join segments g on g.community_id = x.community_id and g.id = x.segment_id and g.entity_type = 'contact'
    where x.community_id = ${c} and x.entity_id = ${id}`;
  const links = (id: number) => sql`object_associations x
    join object_type_assocs t on t.community_id = x.community_id and t.id = x.assoc_id and t.target_entity = 'contact'
    where x.community_id = ${c} and x.target_id = ${id}`;
  return sql`jsonb_build_object(
    'contact', (select to_jsonb(x) from contacts x where x.community_id = ${c} and x.id = ${m}),
    'survivor', (select to_jsonb(x) from contacts x where x.community_id = ${c} and x.id = ${s}),
    'moved', jsonb_build_object(${sql.join(moved)}),
    'keyed', jsonb_build_object(${sql.join(keyed)}),
    'memberships', jsonb_build_object(
      'rows', (select coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb) from ${members(m)}),
      'survivorKeys', (select coalesce(jsonb_agg(x.segment_id), '[]'::jsonb) from ${members(s)})),
    'associations', jsonb_build_object(
      'rows', (select coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb) from ${links(m)}),
      'survivorKeys', (select coalesce(jsonb_agg(jsonb_build_array(x.object_id, x.assoc_id)), '[]'::jsonb) from ${links(s)})),
    'earlier', (select coalesce(jsonb_agg(x.merged_id), '[]'::jsonb) from contact_merges x
                where x.community_id = ${c} and x.survivor_id = ${m} and x.unmerged_at is null),
    'neverMerge', (select coalesce(jsonb_agg(x.other_id), '[]'::jsonb) from contact_never_merge x
                   where x.community_id = ${c} and x.contact_id = ${m}))`;
}

export interface Merge {
  communityId: number;
  survivorId: number;
  mergedId: number;
  reason: string;
  /** The identity that showed the two to be one person; null for a merge made by hand or by a sender's ID. */
  identity: Identity | null;
  /** The source of the push that merged them; null for a merge made by hand. */
  sourceId: number | null;
  /** Who merged them by hand (the writer's actor); null for a merge made by ingestion. */
  by: string | null;
  now: Date;
}

/**
 * Merges `mergedId` into `survivorId`: everything that pointed at the merged contact moves to the survivor
 * (memberships, tags, custom values and scores where the survivor has none of its own), the survivor's
 * empty fields take the merged contact's values, the merged row is deleted, and the merge is recorded with
 * what the merged contact brought (unmergeContacts), so the merged ID keeps resolving, to the survivor, with
 * the reason, until the merge is undone.
 */
export async function mergeContacts(trx: Transaction<DB>, merge: Merge) {
  const { communityId: c, survivorId: s, mergedId: m } = merge;
  // Recorded first, as the rows are before anything moves; the snapshot stays in the database.
  await sql`
    insert into contact_merges (community_id, merged_id, survivor_id, reason, identity_type, identity_value, source_id, merged_by, merged_at, snapshot)
    values (${c}, ${m}, ${s}, ${merge.reason}, ${merge.identity?.type ?? null}, ${merge.identity?.display ?? null}, ${merge.sourceId},
      ${merge.by}, ${merge.now}, ${snapshotOf(c, s, m)})`.execute(trx);
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
  // The survivor takes the merged contact's never-merge pairs (a pair of the two themselves ends here).
  await sql`
    insert into contact_never_merge (community_id, contact_id, other_id, reason, created_at)
    select community_id, case when contact_id = ${m} then ${s} else contact_id end, case when other_id = ${m} then ${s} else other_id end,
      reason, created_at
    from contact_never_merge
    where community_id = ${c} and (contact_id = ${m} or other_id = ${m}) and contact_id <> ${s} and other_id <> ${s}
    on conflict do nothing`.execute(trx);
  await sql`delete from contact_never_merge where community_id = ${c} and ${m} in (contact_id, other_id)`.execute(trx);
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
      -- A member merged with a console user's staff contact (either way) gives a member.
      staff = s.staff and m.staff,
      updated_at = ${merge.now}
    from contacts m
    where s.community_id = ${c} and s.id = ${s} and m.community_id = ${c} and m.id = ${m}`.execute(trx);
  // Earlier merges into the merged contact now resolve to the survivor directly (undone ones go along, as
  // history of the survivor).
  await sql`update contact_merges set survivor_id = ${s} where community_id = ${c} and survivor_id = ${m}`.execute(trx);
  await sql`delete from contacts where community_id = ${c} and id = ${m}`.execute(trx);
  // The survivor's job history as the merge left it: an undone merge gives it back only if nothing changed it since.
  await sql`
    update contact_merges set snapshot = snapshot || jsonb_build_object('jobHistoryAfter', (
      select job_history from contacts where community_id = ${c} and id = ${s}))
    where community_id = ${c} and merged_id = ${m} and unmerged_at is null`.execute(trx);
}

/** The columns a merge fills on the survivor from the merged contact when the survivor's is empty. */
const FILLED_COLUMNS = [
  'full_name',
  'username',
  'avatar_url',
  'bio',
  'primary_email',
  'title',
  'role',
  'company_name',
  'company_website',
  'organization_id',
  'city',
  'region',
  'country',
  'country_code',
  'world_region',
  'raw_location',
] as const;

/** The merge of `mergedId` that is not undone, with the contact it resolves to now and whether it can be undone. */
export async function findLiveMerge(db: Executor, communityId: number, mergedId: number) {
  const { rows } = await sql<{ survivorId: number; mergedAt: Date; undoable: boolean }>`
    select survivor_id as "survivorId", merged_at as "mergedAt", snapshot is not null as undoable
    from contact_merges where community_id = ${communityId} and merged_id = ${mergedId} and unmerged_at is null`.execute(db);
  return rows[0] ?? null;
}

/**
 * Undoes the merge of `mergedId` into `survivorId` (the contact it resolves to now), which the caller has
 * locked and found undoable (findLiveMerge). The merged contact comes back under its ID, as the merge's
 * snapshot has it, with the rows it brought; what arrived after the merge from one of its source profiles
 * (activities and identities, by the sender's ID they came with) goes with it; the survivor gives back the
 * fields, tags, values, scores, memberships and object links it got only from it, when nothing changed
 * them since. The merge stays in the history, undone, without its snapshot; the pair is marked never-merge.
 */
export async function unmergeContacts(trx: Transaction<DB>, undo: { communityId: number; survivorId: number; mergedId: number; by: string; now: Date }) {
  const { communityId: c, survivorId: s, mergedId: m } = undo;
  const snap = sql`(select snapshot from contact_merges where community_id = ${c} and merged_id = ${m} and unmerged_at is null)`;
  // A snapshot taken before migration 0045 has no `staff`: such a contact was a member.
  await sql`insert into contacts select (jsonb_populate_record(null::contacts, '{"staff": false}'::jsonb || (${snap} -> 'contact'))).*`.execute(trx);
  // Its organization may be gone since; the counts are the caller's to refresh.
  await sql`
    update contacts x set organization_id = null
    where x.community_id = ${c} and x.id = ${m} and x.organization_id is not null
      and not exists (select 1 from organizations o where o.community_id = x.community_id and o.id = x.organization_id)`.execute(trx);
  for (const [table, column, keys] of CONTACT_REFERENCES.moved) {
    await sql`
      update ${sql.table(table)} x set ${sql.ref(column)} = ${m}
      where x.community_id = ${c} and ${sql.ref(`x.${column}`)} = ${s}
        and jsonb_build_array(${sql.join(keys.map((key) => sql.ref(`x.${key}`)))}) in (
          select e from jsonb_array_elements(${snap} -> 'moved' -> ${table}) e)`.execute(trx);
  }
  // What arrived after the merge from the merged contact's own source profiles is its.
  for (const table of ['activities', 'contact_identities'] as const) {
    await sql`
      update ${sql.table(table)} x set contact_id = ${m}
      where x.community_id = ${c} and x.contact_id = ${s} and x.sender_id is not null
        and exists (
          select 1 from source_profiles p
          where p.community_id = x.community_id and p.contact_id = ${m} and p.source_id = x.source_id and p.external_id = x.sender_id
        )`.execute(trx);
  }
  for (const [table, key, parent] of CONTACT_REFERENCES.keyed) {
    if (parent === null) continue;
    const rows = sql`jsonb_array_elements(${snap} -> 'keyed' -> ${table} -> 'rows') e`;
    await sql`
      insert into ${sql.table(table)}
      select (jsonb_populate_record(null::${sql.table(table)}, e)).* from ${rows}
      where exists (select 1 from ${sql.table(parent)} p where p.community_id = ${c} and p.id = (e ->> ${key})::bigint)
      on conflict do nothing`.execute(trx);
    // A value changed on the survivor since the merge is the survivor's now.
    const unchanged = table === 'custom_field_values' ? sql`and t.value = e -> 'value'` : sql``;
    await sql`
      delete from ${sql.table(table)} t using ${rows}
      where t.community_id = ${c} and t.entity_type = 'contact' and t.entity_id = ${s}
        and ${sql.ref(`t.${key}`)} = (e ->> ${key})::bigint ${unchanged}
        and not (${snap} -> 'keyed' -> ${table} -> 'survivorKeys' @> jsonb_build_array(${sql.ref(`t.${key}`)}))`.execute(trx);
  }
  await sql`
    insert into segment_memberships (community_id, segment_id, entity_id, status_id, added_at)
    select ${c}, r.segment_id, ${m},
      (select st.id from segment_statuses st where st.community_id = ${c} and st.id = r.status_id), r.added_at
    from jsonb_populate_recordset(null::segment_memberships, ${snap} -> 'memberships' -> 'rows') r
    where exists (select 1 from segments g where g.community_id = ${c} and g.id = r.segment_id)
    on conflict do nothing`.execute(trx);
  await sql`
    delete from segment_memberships t
    where t.community_id = ${c} and t.entity_id = ${s}
      and t.segment_id in (select r.segment_id from jsonb_populate_recordset(null::segment_memberships, ${snap} -> 'memberships' -> 'rows') r)
      and not (${snap} -> 'memberships' -> 'survivorKeys' @> jsonb_build_array(t.segment_id))`.execute(trx);
  await sql`
    insert into object_associations (community_id, object_id, assoc_id, target_id, created_at)
    select ${c}, r.object_id, r.assoc_id, ${m}, r.created_at
    from jsonb_populate_recordset(null::object_associations, ${snap} -> 'associations' -> 'rows') r
    where exists (select 1 from objects o where o.community_id = ${c} and o.id = r.object_id)
      and exists (select 1 from object_type_assocs a where a.community_id = ${c} and a.id = r.assoc_id)
    on conflict do nothing`.execute(trx);
  await sql`
    delete from object_associations t
    using jsonb_populate_recordset(null::object_associations, ${snap} -> 'associations' -> 'rows') r
    where t.community_id = ${c} and t.target_id = ${s} and t.object_id = r.object_id and t.assoc_id = r.assoc_id
      and not (${snap} -> 'associations' -> 'survivorKeys' @> jsonb_build_array(jsonb_build_array(t.object_id, t.assoc_id)))`.execute(trx);
  await sql`
    update contact_merges set survivor_id = ${m}
    where community_id = ${c} and survivor_id = ${s} and unmerged_at is null
      and merged_id in (select e::bigint from jsonb_array_elements_text(${snap} -> 'earlier') e)`.execute(trx);
  await sql`
    insert into contact_never_merge (community_id, contact_id, other_id, reason, created_at)
    select ${c}, pair.a, pair.b, 'kept from before the merge', ${undo.now}
    from jsonb_array_elements_text(${snap} -> 'neverMerge') e
    cross join lateral (values (${m}::bigint, e::bigint), (e::bigint, ${m}::bigint)) as pair(a, b)
    where exists (select 1 from contacts x where x.community_id = ${c} and x.id = e::bigint)
    on conflict do nothing`.execute(trx);
  // The survivor's fields that the merge filled from the merged contact, unchanged since, are empty again.
  const revert = FILLED_COLUMNS.map(
    (column) =>
      sql`${sql.ref(column)} = case when ${sql.ref(`b.${column}`)} is null and ${sql.ref(`x.${column}`)} is not distinct from ${sql.ref(`o.${column}`)}
        then null else ${sql.ref(`x.${column}`)} end`,
  );
  await sql`
    update contacts x set ${sql.join(revert)},
      phone_numbers = case when b.phone_numbers = '[]'::jsonb and x.phone_numbers = o.phone_numbers then b.phone_numbers else x.phone_numbers end,
      name = case when b.full_name is null and b.name = 'Unknown' and x.name = o.name then b.name else x.name end,
      job_history = case when x.job_history = ${snap} -> 'jobHistoryAfter' then b.job_history else x.job_history end,
      -- A staff contact the merge made a member is staff again once no source profile is left to it.
      staff = coalesce(b.staff, false) and not exists (
        select 1 from source_profiles p where p.community_id = x.community_id and p.contact_id = x.id),
      updated_at = ${undo.now}
    from jsonb_populate_record(null::contacts, ${snap} -> 'survivor') b, jsonb_populate_record(null::contacts, ${snap} -> 'contact') o
    where x.community_id = ${c} and x.id = ${s}`.execute(trx);
  await sql`
    update contact_merges set unmerged_at = ${undo.now}, unmerged_by = ${undo.by}, snapshot = null
    where community_id = ${c} and merged_id = ${m} and unmerged_at is null`.execute(trx);
  await markNeverMerge(trx, c, [s, m], `a merge of the two was undone by ${undo.by}`, undo.now);
}

/** Marks two contacts as two people: ingestion never merges them (resolvePerson). */
export async function markNeverMerge(trx: Transaction<DB>, communityId: number, [a, b]: [number, number], reason: string, now: Date) {
  await sql`
    insert into contact_never_merge (community_id, contact_id, other_id, reason, created_at)
    values (${communityId}, ${a}, ${b}, ${reason}, ${now}), (${communityId}, ${b}, ${a}, ${reason}, ${now})
    on conflict do nothing`.execute(trx);
}

/** Lifts the never-merge mark of two contacts (a person merges them by hand). */
export async function clearNeverMerge(trx: Transaction<DB>, communityId: number, [a, b]: [number, number]) {
  await sql`delete from contact_never_merge where community_id = ${communityId} and contact_id in (${a}, ${b}) and other_id in (${a}, ${b})`.execute(trx);
}

/** The pairs among these contacts marked never-merge, each once from each side. */
export async function neverMergePairs(db: Executor, communityId: number, contactIds: number[]): Promise<{ contactId: number; otherId: number }[]> {
  if (contactIds.length < 2) return [];
  const { rows } = await sql<{ contactId: number; otherId: number }>`
    select contact_id as "contactId", other_id as "otherId" from contact_never_merge
    where community_id = ${communityId} and contact_id = any(${contactIds}::bigint[]) and other_id = any(${contactIds}::bigint[])`.execute(db);
  return rows;
}

/** The contacts merged into a survivor (directly or through another merged contact), newest first, undone merges too. */
export async function mergesInto(db: Executor, communityId: number, survivorId: number) {
  return db
    .selectFrom('contact_merges')
    .select([
      'merged_id as mergedId',
      'reason',
      'identity_type as identityType',
      'source_id as sourceId',
      'merged_at as mergedAt',
      'merged_by as mergedBy',
      'unmerged_at as unmergedAt',
      'unmerged_by as unmergedBy',
      sql<boolean>`snapshot is not null`.as('undoable'),
    ])
    .where('community_id', '=', communityId)
    .where('survivor_id', '=', survivorId)
    .orderBy('merged_at', 'desc')
    .orderBy('merged_id', 'desc')
    .execute();
}

/** The live contact an ID names: itself, or the survivor it was merged into (by a merge not undone). */
export async function resolveContactId(db: Executor, communityId: number, contactId: number): Promise<number | null> {
  const row = await sql<{ id: number }>`
    select id from contacts where community_id = ${communityId} and id = ${contactId}
    union all
    select survivor_id from contact_merges where community_id = ${communityId} and merged_id = ${contactId} and unmerged_at is null
    limit 1`.execute(db);
  return row.rows[0]?.id ?? null;
}

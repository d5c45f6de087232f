import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** Those of the contacts that are members (not staff), in the order given. */
export async function membersAmong(db: Kysely<DB>, communityId: number, contactIds: number[]): Promise<number[]> {
  if (contactIds.length === 0) return [];
  const rows = await db
    .selectFrom('contacts')
    .select('id')
    .where('community_id', '=', communityId)
    .where('id', 'in', contactIds)
    .where('staff', '=', true)
    .execute();
  const staff = new Set(rows.map((row) => row.id));
  return contactIds.filter((id) => !staff.has(id));
}

/** Everything the core lookup shows of these contacts, in one query per kind of data. */
export async function loadLookupRows(db: Kysely<DB>, communityId: number, contactIds: number[]) {
  const [contacts, identities, segments, customFields, tags] = await Promise.all([
    db
      .selectFrom('contacts as c')
      .leftJoin('organizations as o', (join) => join.onRef('o.community_id', '=', 'c.community_id').onRef('o.id', '=', 'c.organization_id'))
      .select([
        'c.id',
        'c.name',
        'c.full_name as fullName',
        'c.avatar_url as avatar',
        'c.bio',
        'c.title',
        'c.company_name as companyName',
        'o.name as organizationName',
        'c.created_at as firstSeen',
        'c.latest_activity_at as lastActive',
        'c.activity_count_all as activitiesCount',
        'c.city',
        'c.region',
        'c.country',
        'c.country_code as countryCode',
        'c.world_region as worldRegion',
      ])
      .where('c.community_id', '=', communityId)
      .where('c.id', 'in', contactIds)
      .orderBy('c.id')
      .execute(),
    db
      .selectFrom('contact_identities')
      .select(['contact_id as contactId', 'type', 'display_value as display'])
      .where('community_id', '=', communityId)
      .where('contact_id', 'in', contactIds)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('segment_memberships as m')
      .innerJoin('segments as s', (join) => join.onRef('s.community_id', '=', 'm.community_id').onRef('s.id', '=', 'm.segment_id'))
      .select(['m.entity_id as contactId', 's.id', 's.name'])
      .where('m.community_id', '=', communityId)
      .where('s.entity_type', '=', 'contact')
      .where('m.entity_id', 'in', contactIds)
      .orderBy('s.id')
      .execute(),
    db
      .selectFrom('custom_field_values as v')
      .innerJoin('custom_fields as f', (join) => join.onRef('f.community_id', '=', 'v.community_id').onRef('f.id', '=', 'v.custom_field_id'))
      .select(['v.entity_id as contactId', 'f.name', 'f.value_type as type', 'v.value'])
      .where('v.community_id', '=', communityId)
      .where('v.entity_type', '=', 'contact')
      .where('v.entity_id', 'in', contactIds)
      .where('f.deleted_at', 'is', null)
      .orderBy('f.id')
      .execute(),
    db
      .selectFrom('tag_assignments as a')
      .innerJoin('tags as t', (join) => join.onRef('t.community_id', '=', 'a.community_id').onRef('t.id', '=', 'a.tag_id'))
      .select(['a.entity_id as contactId', 't.id', 't.name'])
      .where('a.community_id', '=', communityId)
      .where('a.entity_type', '=', 'contact')
      .where('a.entity_id', 'in', contactIds)
      .where('t.deleted_at', 'is', null)
      .orderBy('t.id')
      .execute(),
  ]);
  return { contacts, identities, segments, customFields, tags };
}

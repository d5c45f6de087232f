import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../src/db/schema.ts';

/**
 * What the database holds of one contact, by natural keys (never by row IDs a merge may change): its fields,
 * identities, source profiles, activities (source, type, ID), tags, custom values, segment memberships and
 * object links. Merge tests compare these before a merge and after it is undone.
 */
export async function contactState(db: Kysely<DB>, communityId: number, contactId: number) {
  const one = async (query: RawBuilder<unknown>) => (await query.execute(db)).rows as Record<string, unknown>[];
  const [contact] = await one(sql`
    select name, full_name, username, avatar_url, bio, primary_email, title, role, company_name, company_website, organization_id,
      city, region, country, raw_location, phone_numbers, job_history, activity_count_all, first_activity_at, latest_activity_at,
      created_at
    from contacts where community_id = ${communityId} and id = ${contactId}`);
  return {
    contact: contact ?? null,
    identities: await one(sql`
      select type, value, display_value from contact_identities
      where community_id = ${communityId} and contact_id = ${contactId} order by type, value`),
    profiles: await one(sql`
      select source_id, external_id, fields from source_profiles
      where community_id = ${communityId} and contact_id = ${contactId} order by source_id, external_id`),
    activities: await one(sql`
      select source_id, activity_type, external_id, title from activities
      where community_id = ${communityId} and contact_id = ${contactId} order by source_id, activity_type, external_id`),
    tags: await one(sql`
      select tag_id from tag_assignments
      where community_id = ${communityId} and entity_type = 'contact' and entity_id = ${contactId} order by tag_id`),
    values: await one(sql`
      select custom_field_id, value from custom_field_values
      where community_id = ${communityId} and entity_type = 'contact' and entity_id = ${contactId} order by custom_field_id`),
    segments: await one(sql`
      select m.segment_id, m.status_id from segment_memberships m
      join segments s on s.community_id = m.community_id and s.id = m.segment_id and s.entity_type = 'contact'
      where m.community_id = ${communityId} and m.entity_id = ${contactId} order by m.segment_id`),
    links: await one(sql`
      select a.object_id, a.assoc_id from object_associations a
      join object_type_assocs t on t.community_id = a.community_id and t.id = a.assoc_id and t.target_entity = 'contact'
      where a.community_id = ${communityId} and a.target_id = ${contactId} order by a.object_id, a.assoc_id`),
  };
}

export type ContactState = Awaited<ReturnType<typeof contactState>>;

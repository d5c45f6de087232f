import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Executor } from '../../core/executor.ts';

/** The contact fields a push can set. Undefined leaves a field as it is; a value replaces it. */
export interface ContactFields {
  name?: string;
  full_name?: string;
  username?: string;
  avatar_url?: string;
  bio?: string;
  primary_email?: string;
  title?: string;
  role?: string;
  company_name?: string;
  company_website?: string;
  organization_id?: number;
  city?: string | null;
  region?: string | null;
  country?: string | null;
  country_code?: string | null;
  world_region?: string | null;
  raw_location?: string;
  phone_numbers?: string;
}

export async function insertContact(trx: Transaction<DB>, communityId: number, fields: ContactFields & { name: string }, now: Date) {
  const row = await trx
    .insertInto('contacts')
    .values({ community_id: communityId, ...fields, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateContact(trx: Transaction<DB>, communityId: number, contactId: number, fields: ContactFields, now: Date) {
  await trx
    .updateTable('contacts')
    .set({ ...fields, updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', contactId)
    .execute();
}

/** What ingestion and the contact get need to know of a contact's current state. */
export async function findContactState(db: Executor, communityId: number, contactId: number) {
  return db
    .selectFrom('contacts')
    .select(['name', 'full_name as fullName', 'organization_id as organizationId', 'anonymized_at as anonymizedAt'])
    .where('community_id', '=', communityId)
    .where('id', '=', contactId)
    .executeTakeFirst();
}

/** Recounts a contact's activities and their first and latest times (one index range scan). */
export async function refreshActivityStats(trx: Transaction<DB>, communityId: number, contactIds: number[]) {
  if (contactIds.length === 0) return;
  await sql`
    update contacts c set
      activity_count_all = s.count, first_activity_at = s.first, latest_activity_at = s.latest
    from (
      select ids.id, count(a.id)::int as count, min(a.activity_time) as first, max(a.activity_time) as latest
      from unnest(${contactIds}::bigint[]) as ids(id)
      left join activities a on a.community_id = ${communityId} and a.contact_id = ids.id
      group by ids.id
    ) s
    where c.community_id = ${communityId} and c.id = s.id`.execute(trx);
}

import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { communityTx } from '../communities/index.ts';

export async function findAppUser(db: Kysely<DB>, communityId: number, userId: number) {
  return db
    .selectFrom('app_users as u')
    .innerJoin('communities as c', 'c.id', 'u.community_id')
    .leftJoin('contact_identities as i', (join) =>
      join
        .onRef('i.community_id', '=', 'u.community_id')
        .on('i.type', '=', 'email')
        .on('i.value', '=', sql<string>`lower(btrim(u.login_email))`),
    )
    .select([
      'u.id',
      'u.name',
      'u.title',
      'u.role',
      'u.login_email as loginEmail',
      sql<number | null>`coalesce(i.contact_id, u.contact_id)`.as('contactId'),
      'c.company_name as companyName',
      'c.company_domains as companyDomains',
      'c.company_summary as companySummary',
    ])
    .where('u.community_id', '=', communityId)
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

export function linkContact(db: Kysely<DB>, user: { communityId: number; id: number; name: string; loginEmail: string }, now: Date) {
  return db.transaction().execute((trx) => communityTx.linkAppUserContact(trx, user, now));
}

export async function listContactProfiles(db: Kysely<DB>, communityId: number, contactId: number) {
  return db
    .selectFrom('contact_identities')
    .select(['type', 'display_value as handle'])
    .where('community_id', '=', communityId)
    .where('contact_id', '=', contactId)
    .orderBy('type')
    .orderBy('value')
    .execute();
}

export async function listBookmarkedSegments(db: Kysely<DB>, communityId: number, userId: number) {
  return db
    .selectFrom('app_user_segment_bookmarks as b')
    .innerJoin('segments as s', (join) => join.onRef('s.community_id', '=', 'b.community_id').onRef('s.id', '=', 'b.segment_id'))
    .select(['s.id', 's.name'])
    .where('b.community_id', '=', communityId)
    .where('b.user_id', '=', userId)
    .orderBy('s.id')
    .execute();
}

export async function listPersonas(db: Kysely<DB>, communityId: number, userId: number) {
  return db
    .selectFrom('app_user_personas as up')
    .innerJoin('personas as p', (join) => join.onRef('p.community_id', '=', 'up.community_id').onRef('p.id', '=', 'up.persona_id'))
    .select(['p.id', 'p.name'])
    .where('up.community_id', '=', communityId)
    .where('up.user_id', '=', userId)
    .orderBy('p.id')
    .execute();
}

import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { contactTx } from '../contacts/index.ts';
import { normalizeEmail } from '../identity/index.ts';
import type { Executor } from '../../core/executor.ts';

export async function insertCommunity(db: Executor, name: string): Promise<number> {
  const row = await db.insertInto('communities').values({ name }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function findCommunity(db: Executor, id: number) {
  return db
    .selectFrom('communities')
    .select(['id', 'name', 'company_name as companyName', 'company_domains as companyDomains', 'company_summary as companySummary'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function firstCommunity(db: Executor) {
  return db.selectFrom('communities').select(['id', 'name']).orderBy('id').limit(1).executeTakeFirst();
}

export async function listCommunities(db: Executor) {
  return db.selectFrom('communities').select(['id', 'name', 'created_at as createdAt']).orderBy('id').execute();
}

/** A new app user, with their contact (`linkAppUserContact`). */
export async function insertAppUser(
  trx: Transaction<DB>,
  user: { communityId: number; name: string; loginEmail: string; role: 'admin' | 'member' },
  now: Date,
): Promise<number> {
  const row = await trx
    .insertInto('app_users')
    .values({ community_id: user.communityId, name: user.name, login_email: user.loginEmail, role: user.role })
    .returning('id')
    .executeTakeFirstOrThrow();
  await linkAppUserContact(trx, { ...user, id: row.id }, now);
  return row.id;
}

/**
 * Gives an app user their contact: the one holding their login email when there is one, else a new contact
 * with that email as its identity (`/me.id` is never null).
 */
export async function linkAppUserContact(
  trx: Transaction<DB>,
  user: { communityId: number; id: number; name: string; loginEmail: string },
  now: Date,
): Promise<number> {
  const email = normalizeEmail(user.loginEmail);
  const owner = email.ok
    ? await trx
        .selectFrom('contact_identities')
        .select('contact_id')
        .where('community_id', '=', user.communityId)
        .where('type', '=', email.identity.type)
        .where('value', '=', email.identity.value)
        .executeTakeFirst()
    : undefined;
  let contactId = owner?.contact_id;
  if (contactId === undefined) {
    // Made for the console alone, the contact is staff until a source knows the person (docs/console.md).
    const fields = { name: user.name, full_name: user.name, primary_email: user.loginEmail.trim() };
    contactId = await contactTx.insertContact(trx, user.communityId, fields, now, { staff: true });
    if (email.ok) {
      await trx
        .insertInto('contact_identities')
        .values({
          community_id: user.communityId,
          type: email.identity.type,
          value: email.identity.value,
          display_value: email.identity.display,
          contact_id: contactId,
        })
        .execute();
    }
  }
  await trx.updateTable('app_users').set({ contact_id: contactId }).where('community_id', '=', user.communityId).where('id', '=', user.id).execute();
  return contactId;
}

export async function firstAdmin(db: Executor, communityId: number) {
  return db
    .selectFrom('app_users')
    .select(['id', 'name'])
    .where('community_id', '=', communityId)
    .where('role', '=', 'admin')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** Serializes first-run setup across processes that start together on one database. */
export async function lockBootstrap(trx: Transaction<DB>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(trx);
}

const BOOTSTRAP_LOCK = 7_164_001;

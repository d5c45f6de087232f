import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

type Executor = Kysely<DB> | Transaction<DB>;

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

export async function insertAppUser(
  db: Executor,
  user: { communityId: number; name: string; loginEmail: string; role: 'admin' | 'member' },
): Promise<number> {
  const row = await db
    .insertInto('app_users')
    .values({ community_id: user.communityId, name: user.name, login_email: user.loginEmail, role: user.role })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
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

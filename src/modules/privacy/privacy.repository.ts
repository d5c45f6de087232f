import { sql, type Kysely, type Transaction, type Updateable } from 'kysely';
import type { Contacts, DB } from '../../db/schema.ts';
import { ERASED_COLUMNS } from '../contacts/index.ts';
import { jobTitleTx } from '../job-titles/index.ts';
import { locationTx } from '../locations/index.ts';
import { organizationTx } from '../organizations/index.ts';
import { topicTx } from '../topics/index.ts';
import { webhookTx } from '../webhooks/index.ts';

export interface ErasedCounts {
  contacts: number;
  identities: number;
  sourceProfiles: number;
  customFieldValues: number;
  activities: number;
  websiteVisits: number;
}

export const NO_ERASURE: ErasedCounts = { contacts: 0, identities: 0, sourceProfiles: 0, customFieldValues: 0, activities: 0, websiteVisits: 0 };

export interface RemovalRequestRow {
  communityId: number;
  id: number;
  email: string | null;
  emailHash: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  requestedBy: string | null;
  requestedAt: Date;
  deadlineAt: Date;
  completedAt: Date | null;
  erased: Partial<ErasedCounts>;
}

const columns = [
  'community_id as communityId',
  'id',
  'email',
  'email_hash as emailHash',
  sql<RemovalRequestRow['status']>`status`.as('status'),
  'requested_by as requestedBy',
  'requested_at as requestedAt',
  'deadline_at as deadlineAt',
  'completed_at as completedAt',
  sql<Partial<ErasedCounts>>`erased`.as('erased'),
] as const;

export async function insertRemovalRequest(
  db: Kysely<DB>,
  request: { communityId: number; email: string; emailHash: string; requestedBy: string | null; requestedAt: Date; deadlineAt: Date },
): Promise<number> {
  const row = await db
    .insertInto('removal_requests')
    .values({
      community_id: request.communityId,
      email: request.email,
      email_hash: request.emailHash,
      requested_by: request.requestedBy,
      requested_at: request.requestedAt,
      deadline_at: request.deadlineAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findRemovalRequest(db: Kysely<DB>, communityId: number, id: number): Promise<RemovalRequestRow | undefined> {
  return db.selectFrom('removal_requests').select(columns).where('community_id', '=', communityId).where('id', '=', id).executeTakeFirst();
}

export async function listRemovalRequests(db: Kysely<DB>, communityId: number | null): Promise<RemovalRequestRow[]> {
  let query = db.selectFrom('removal_requests').select(columns).orderBy('community_id').orderBy('id');
  if (communityId !== null) query = query.where('community_id', '=', communityId);
  return query.execute();
}

export async function updateRemovalRequest(
  db: Kysely<DB>,
  communityId: number,
  id: number,
  update: { status?: 'running' | 'completed' | 'failed'; erased?: ErasedCounts; completedAt?: Date; forgetEmail?: boolean },
): Promise<void> {
  await db
    .updateTable('removal_requests')
    .set({
      ...(update.status ? { status: update.status } : {}),
      ...(update.erased ? { erased: JSON.stringify(update.erased) } : {}),
      ...(update.completedAt ? { completed_at: update.completedAt } : {}),
      ...(update.forgetEmail ? { email: null } : {}),
    })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

export const ANONYMIZED_NAME = 'Anonymized contact';

/** What an erasure writes in the contact's columns: each column says what it leaves (contacts' CONTACT_COLUMN_ROLES). */
function erasedValues(now: Date): Updateable<Contacts> {
  const value = { null: null, 'empty list': '[]', 'anonymized name': ANONYMIZED_NAME, 'erasure time': now };
  return Object.fromEntries([...ERASED_COLUMNS].map(([column, erased]) => [column, value[erased]]));
}

/** Empties every personal field of the contact; its ID, counts and activity times stay. */
export async function anonymizeContact(trx: Transaction<DB>, communityId: number, contactId: number, now: Date): Promise<void> {
  // The contact leaves its location rows and its organization (their member counts): where a person works
  // is personal, as their title and company name are.
  await locationTx.moveMembers(trx, communityId, await locationTx.placesOf(trx, communityId, [contactId]), []);
  const { organizationId } = await trx
    .selectFrom('contacts')
    .select('organization_id as organizationId')
    .where('community_id', '=', communityId)
    .where('id', '=', contactId)
    .executeTakeFirstOrThrow();
  await trx.updateTable('contacts').set(erasedValues(now)).where('community_id', '=', communityId).where('id', '=', contactId).execute();
  // The title counts' log names every title the person carried (emptying it just added one more entry):
  // folded into the counts now, it keeps none of them, and a title only they carried leaves the counts.
  await jobTitleTx.foldOwnJobTitleChanges(trx, communityId);
  if (organizationId !== null) {
    await organizationTx.refreshMemberCounts(trx, communityId, [organizationId]);
    // A model's research answers about the organization were written from its people's titles and
    // activity, this person's included: they go, and are written again without them (docs/insights.md).
    await trx
      .deleteFrom('research_answers')
      .where('community_id', '=', communityId)
      .where('organization_id', '=', organizationId)
      .where('origin', '=', 'model')
      .execute();
  }
}

/** The contact's source profiles not erased yet: the IDs sources gave the person. */
export async function sourceProfilesOf(trx: Transaction<DB>, communityId: number, contactId: number): Promise<{ sourceId: number; externalId: string }[]> {
  const rows = await trx
    .selectFrom('source_profiles')
    .select(['source_id as sourceId', 'external_id as externalId'])
    .where('community_id', '=', communityId)
    .where('contact_id', '=', contactId)
    .where('external_id', 'not like', 'erased:%')
    .execute();
  return rows.map((row) => ({ sourceId: Number(row.sourceId), externalId: row.externalId }));
}

export async function deleteCustomFieldValues(trx: Transaction<DB>, communityId: number, contactId: number): Promise<number> {
  const result = await trx
    .deleteFrom('custom_field_values')
    .where('community_id', '=', communityId)
    .where('entity_type', '=', 'contact')
    .where('entity_id', '=', contactId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Activities stay (counts, threads, types, times), without their title, content, URL and the sender's ID they came with. */
export async function eraseActivityContent(trx: Transaction<DB>, communityId: number, contactId: number, now: Date): Promise<number> {
  await topicTx.unlinkContactActivities(trx, communityId, contactId);
  const result = await trx
    .updateTable('activities')
    .set({ title: null, content: null, url: null, sender_id: null, updated_at: now })
    .where('community_id', '=', communityId)
    .where('contact_id', '=', contactId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The rest that names the person: merge records' identity values, reasons and snapshots, merge suggestions, web visits and the browsers a site
 * identified as theirs (with the address it gave), lead score explanations, and the webhook events about
 * them and their activities (whose payloads hold what was erased).
 */
export async function eraseTraces(trx: Transaction<DB>, communityId: number, contactId: number): Promise<number> {
  // Merges into the contact, and undone merges of it: their reasons quote the identities that tied the two,
  // and a merge's snapshot holds all the merged contact brought (it can no longer be undone).
  await trx
    .updateTable('contact_merges')
    .set({ identity_value: null, snapshot: null, reason: sql<string>`regexp_replace(reason, '"[^"]*"', '"(erased)"', 'g')` })
    .where('community_id', '=', communityId)
    .where((where) => where.or([where('survivor_id', '=', contactId), where('merged_id', '=', contactId)]))
    .execute();
  // Suggested and dismissed pairs with it: their reasons quote its name and addresses.
  await trx
    .deleteFrom('contact_merge_suggestions')
    .where('community_id', '=', communityId)
    .where((where) => where.or([where('contact_id', '=', contactId), where('other_id', '=', contactId)]))
    .execute();
  await trx
    .updateTable('lead_scores')
    .set({ key_factors: '[]' })
    .where('community_id', '=', communityId)
    .where('entity_type', '=', 'contact')
    .where('entity_id', '=', contactId)
    .execute();
  const visits = await trx.deleteFrom('website_visits').where('community_id', '=', communityId).where('contact_id', '=', contactId).executeTakeFirst();
  await trx.deleteFrom('website_visitors').where('community_id', '=', communityId).where('contact_id', '=', contactId).execute();
  await webhookTx.forgetContactEvents(trx, communityId, contactId);
  return Number(visits.numDeletedRows);
}

/**
 * The fields of other contacts' source profiles that name the address (lowercase, as given and as its match
 * key): a source may have said it of another sender, which a merge later undone then kept apart from the
 * person it names (docs/ingestion.md, Erasure). One pass over the community's profiles, once per request.
 */
export async function eraseProfileMentions(db: Kysely<DB>, communityId: number, addresses: string[]): Promise<void> {
  await sql`
    update source_profiles p set fields = (
      select coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) from jsonb_each(p.fields) e
      where not exists (select 1 from unnest(${addresses}::text[]) a(v) where strpos(lower(e.value::text), a.v) > 0)
    )
    where p.community_id = ${communityId}
      and exists (select 1 from unnest(${addresses}::text[]) a(v) where strpos(lower(p.fields::text), a.v) > 0)`.execute(db);
}

/**
 * Browsers a site identified by the address while no contact held it (website tracker), and their visits:
 * the address and what it would have linked go with the request. Unsigned identify calls kept apart that
 * name the address go too; their visits, which they never linked to anyone, stay anonymous.
 */
export async function eraseVisitorsByEmail(db: Kysely<DB>, communityId: number, email: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with gone as (
      delete from website_visitors where community_id = ${communityId} and email = ${email} returning anonymous_id
    ), visits as (
      delete from website_visits w using gone where w.community_id = ${communityId} and w.anonymous_id = gone.anonymous_id returning 1
    ), held as (
      delete from website_unverified_visitors where community_id = ${communityId} and email = ${email}
    )
    select count(*)::int as n from visits`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

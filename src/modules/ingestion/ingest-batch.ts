import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { RetryTransaction } from '../../db/transaction.ts';
import { activityTx } from '../activities/index.ts';
import { type AuditRecord, auditTx } from '../audit/index.ts';
import type * as contacts from '../contacts/index.ts';
import { contactTx } from '../contacts/index.ts';
import { customFieldTx } from '../custom-fields/index.ts';
import { jsonRow } from '../../core/json-rows.ts';
import { readTogether, writeTogether, type PlainWrite, type Write } from '../../core/lookups.ts';
import type { Writer } from '../../core/writer.ts';
import * as identity from '../identity/index.ts';
import { identityTx } from '../identity/index.ts';
import { leadScoreTx } from '../lead-scores/index.ts';
import { type Place, locationTx } from '../locations/index.ts';
import type * as organizations from '../organizations/index.ts';
import { organizationTx } from '../organizations/index.ts';
import { privacyTx } from '../privacy/index.ts';
import { topicTx } from '../topics/index.ts';
import { activityRecord, activityRow, ingestOne, personRecord, SUPPRESSED, type PushOutcome } from './ingest-one.ts';
import type { PushItem } from './push-item.ts';
import { applyTags, organizationNameOf, personFields } from './user-push.ts';

/**
 * Stores a batch of pushes of one community with a fixed number of set-based statements, whatever its
 * size: the same rules as storing them one after another (docs/behaviour.md, Ingestion), in their order.
 *
 * Pushes are resolved in memory against what the database holds, in order: a person named by an earlier
 * push of the batch is found by the later ones. A push that would merge contacts ends the run of pushes
 * stored together; it is stored by itself (ingestOne, which merges), and the batch goes on after it. A
 * batch whose thread links would close a loop throws ThreadLoop: the caller stores it again one push at a
 * time, where each loop is refused and reported.
 *
 * Run it in a transaction. Another transaction storing the same person at the same time makes one of
 * them fail on a unique key (an identity, a profile), to be run again. With `endsTransaction`, the caller
 * runs nothing after it but the commit: the batch's last write then carries the commit when nothing needs
 * reading after it (LAST_STATEMENT_MARK in src/db/prepared-statements.ts), a round trip saved.
 */
export async function ingestBatch(
  trx: Transaction<DB>,
  communityId: number,
  items: PushItem[],
  options: { endsTransaction?: boolean } = {},
): Promise<PushOutcome[]> {
  const outcomes: PushOutcome[] = [];
  let start = 0;
  while (start < items.length) {
    const rest = items.slice(start);
    const { run, known } = await resolveRun(trx, communityId, rest);
    const lastRun = run.length === rest.length;
    outcomes.push(...(await storeRun(trx, communityId, run, known, options.endsTransaction === true && lastRun)));
    start += run.length;
    // The run ended before the batch did: the next push merges contacts.
    if (run.length < rest.length) outcomes.push(await ingestOne(trx, items[start++]!));
  }
  return outcomes;
}

/** Stores pushes one at a time, each by itself (ingestOne), in order. */
export async function ingestOneByOne(trx: Transaction<DB>, items: PushItem[]): Promise<PushOutcome[]> {
  const outcomes: PushOutcome[] = [];
  for (const item of items) outcomes.push(await ingestOne(trx, item));
  return outcomes;
}

/** Threads of the batch would loop: store it again one push at a time (ingestOneByOne). */
export class ThreadLoop extends Error {}

/** A row threadLinks returns: an activity it linked. */
const linkedActivity = jsonRow('linked activity', { id: 'integer' });

type ContactRef = identity.PersonRef;

interface ResolvedPush {
  item: PushItem;
  /** Its place in the run (PersonRef.madeBy counts in it). */
  index: number;
  /** Null: the person was erased on request; nothing of the push is stored. */
  contact: ContactRef | null;
}

/**
 * What the run's statement read: the organizations that exist for the pushes' domains, and for the names of
 * those without one, and the contacts the pushes lead to.
 */
interface Known {
  byDomain: Map<string, organizations.FoundOrganization>;
  named: organizations.OrganizationsNamed;
  /** The contacts the pushes' IDs and identities lead to, locked, with their state. */
  contacts: Map<number, contacts.LockedContactState>;
}

/**
 * The pushes from the start of `items` that need no merge, each with its contact (found or to make), the
 * organizations they name, and the state of the contacts they lead to, locked. What depends only on the
 * pushes is read in one statement.
 */
async function resolveRun(trx: Transaction<DB>, communityId: number, items: PushItem[]): Promise<{ run: ResolvedPush[]; known: Known }> {
  const people = items.map((item) => ({ sourceId: item.origin.sourceId, ...item.person }));
  const found = await readTogether(trx, {
    suppressed: privacyTx.suppressedAmong(
      communityId,
      people.flatMap((person) => person.identities),
    ),
    owners: identityTx.ownersOfPeople(communityId, people),
    // The contacts those lead to, locked in the same statement: the run writes them (a later push's
    // contact too, which the next run writes, or the merge after the run locks again).
    locked: contactTx.lockedContactStates(communityId, identityTx.ownerIdsOfPeople(communityId, people)),
    byDomain: organizationTx.organizationsByDomains(communityId, [...new Set(items.flatMap((item) => (item.domain ? [item.domain] : [])))]),
    named: organizationTx.organizationsNamed(
      communityId,
      items.filter((item) => !item.domain && item.person.companyName).map((item) => item.person.companyName!),
    ),
  });
  const resolved = identityTx.resolvePeople(people, found.suppressed, found.owners);
  return {
    run: resolved.map((contact, index) => ({ item: items[index]!, index, contact })),
    known: { byDomain: found.byDomain, named: found.named, contacts: found.locked },
  };
}

interface ContactState {
  fullName: string | null;
  organizationId: number | null;
  place: Place | { city: string | null; region: string | null; country: string | null; worldRegion: string | null } | null;
}

/** Writes a resolved run: contacts, organizations, places, identities, profiles, values, tags, activities, audit. */
async function storeRun(trx: Transaction<DB>, communityId: number, run: ResolvedPush[], known: Known, endsTransaction: boolean): Promise<PushOutcome[]> {
  if (run.length === 0) return [];
  const now = run[0]!.item.origin.now;
  const stored = run.filter((push): push is ResolvedPush & { contact: ContactRef } => push.contact !== null);

  // Contacts: the existing ones locked (in ID order, as merges lock them), the new ones made.
  const refs = [...new Set(stored.map((push) => push.contact))];
  const existingIds = refs.filter((ref) => ref.id !== null).map((ref) => ref.id!);
  const found = known.contacts;
  // A contact gone by the time its lock was granted (erased, or merged by another writer): start over.
  if (!existingIds.every((id) => found.has(id))) throw new RetryTransaction();
  const states = new Map<ContactRef, ContactState>();
  for (const ref of refs) {
    if (ref.id === null) {
      states.set(ref, { fullName: null, organizationId: null, place: null });
      continue;
    }
    const row = found.get(ref.id)!;
    states.set(ref, { fullName: row.fullName, organizationId: row.organizationId, place: row });
  }
  const made = new Set(refs.filter((ref) => ref.id === null));

  // Organizations, from domains (found or made) and from names alone (found only, among those that exist
  // when the push comes: before the run, or made by an earlier push of it).
  const { byDomain, named } = known;
  const domains = new Map<string, number>();
  stored.forEach(({ item }, position) => item.domain && !domains.has(item.domain) && domains.set(item.domain, position));
  const missing = [...domains].filter(([domain]) => !byDomain.has(domain));
  const madeOrganizations = await organizationTx.insertOrganizations(
    trx,
    communityId,
    missing.map(([domain, position]) => {
      const { item } = stored[position]!;
      return { domain, name: item.person.companyName ?? organizationNameOf(domain), sourceId: item.origin.sourceId };
    }),
    now,
  );
  for (const [domain, organization] of madeOrganizations) byDomain.set(domain, organization);
  const madeAt = new Map([...madeOrganizations.keys()].map((domain) => [domain, domains.get(domain)!]));
  const onlyNamed = (name: string, position: number) => {
    const key = name.trim().toLowerCase();
    const before = named.get(key) ?? { count: 0, organization: null };
    const madeBefore = [...madeOrganizations].filter(([domain, o]) => madeAt.get(domain)! < position && o.name.trim().toLowerCase() === key);
    if (before.count + madeBefore.length !== 1) return undefined;
    return before.organization ?? madeBefore[0]![1];
  };

  // What each push says, folded per contact in push order: the latest non-empty value wins.
  const fieldsOf = new Map<ContactRef, contacts.ContactFields>();
  const placeBefore = new Map<ContactRef, ContactState['place']>();
  const organizationBefore = new Map([...states].map(([ref, state]) => [ref, state.organizationId]));
  for (const [position, { item, index, contact }] of stored.entries()) {
    const state = states.get(contact)!;
    // As for pushes one at a time: only the push that made the contact may name it "Unknown".
    const fields = personFields(item, state, contact.madeBy === index);
    const organization = item.domain ? byDomain.get(item.domain) : item.person.companyName ? onlyNamed(item.person.companyName, position) : undefined;
    if (organization) {
      fields.organization_id = organization.id;
      fields.company_website = `https://${organization.primaryDomain}`;
      fields.company_name = item.person.companyName ?? organization.name;
      state.organizationId = organization.id;
    }
    if (item.place) {
      if (!placeBefore.has(contact)) placeBefore.set(contact, state.place);
      state.place = item.place;
    }
    if (fields.full_name !== undefined) state.fullName = fields.full_name;
    fieldsOf.set(contact, Object.assign(fieldsOf.get(contact) ?? {}, fields));
  }
  const moved = [...placeBefore.keys()];
  await locationTx.moveMembers(
    trx,
    communityId,
    moved.map((ref) => placeBefore.get(ref)).filter((place) => place != null),
    moved.map((ref) => states.get(ref)!.place!),
  );

  // The new contacts, each written once: with the fields its pushes set and what its activities add (all
  // of them new to it, unless the upsert finds one existed: then it is recounted with the others). With
  // activities, in the statement that upserts them: one round trip for both.
  const activityPushes = lastPushOfEachActivity(stored);
  const addedToMade = new Map<ContactRef, contacts.AddedActivities>();
  for (const { item, contact } of activityPushes) if (made.has(contact)) addTo(addedToMade, contact, item.activity!.time);
  const madeRefs = [...made];
  const madeRows = madeRefs.map((ref) => ({ name: ref.name, fields: fieldsOf.get(ref) ?? {}, added: addedToMade.get(ref) }));
  const upserted = await upsertActivitiesOf(trx, communityId, activityPushes, madeRefs, contactTx.contactInserts(communityId, madeRows, now), now);
  const madeIds = activityPushes.length ? upserted.madeContactIds : await contactTx.insertContacts(trx, communityId, madeRows, now);
  madeRefs.forEach((ref, index) => (ref.id = madeIds[index]!));

  // Who the person is: identities not held yet, and each source's profile (its fields, latest first),
  // written with the last writes.
  const identities = new Map<string, { contactId: number; sourceId: number; senderId: string; identity: identity.Identity }>();
  const profiles = new Map<string, { sourceId: number; externalId: string; contactId: number; fields: Record<string, unknown> }>();
  for (const { item, contact } of stored) {
    for (const known of item.person.identities) {
      const key = identity.identityKey(known);
      if (!identities.has(key))
        identities.set(key, { contactId: contact.id!, sourceId: item.origin.sourceId, senderId: item.person.externalId, identity: known });
    }
    const key = identityTx.profileKey(item.origin.sourceId, item.person.externalId);
    const profile = profiles.get(key) ?? { sourceId: item.origin.sourceId, externalId: item.person.externalId, contactId: contact.id!, fields: {} };
    Object.assign(profile.fields, item.person.profile);
    profiles.set(key, profile);
  }
  const people = identityTx.peopleWrites(communityId, { identities: [...identities.values()], profiles: [...profiles.values()] }, now);
  const memberDeltas = new Map<number, number>();
  for (const [ref, before] of organizationBefore) {
    const after = states.get(ref)!.organizationId;
    if (after === before) continue;
    if (before !== null) memberDeltas.set(before, (memberDeltas.get(before) ?? 0) - 1);
    if (after !== null) memberDeltas.set(after, (memberDeltas.get(after) ?? 0) + 1);
  }

  // Custom field values and tags, where pushes have them.
  const outcomes = new Map<ResolvedPush, PushOutcome>();
  for (const push of run) {
    if (!push.contact) continue;
    const { item, index, contact } = push;
    const outcome: PushOutcome = { contactId: contact.id!, created: contact.madeBy === index, merged: [], activityId: null, warnings: [] };
    outcomes.set(push, outcome);
    if (item.customFields.length) {
      await customFieldTx.writeValues(trx, { communityId, entityType: 'contact', entityId: contact.id!, now }, item.customFields);
    }
    await applyTags(trx, item.origin, { type: 'contact', id: contact.id! }, item.tags, outcome.warnings);
  }

  const { added, recount, topicLinks, threadLinks, mayLoop } = await linkActivities(
    trx,
    communityId,
    stored,
    activityPushes,
    upserted.activities,
    made,
    outcomes,
  );
  // Nothing to read after the last writes (no thread loop to look for, no counts to take again): they go
  // with the transaction's commit when the caller ends it here.
  const last = endsTransaction && !mayLoop && recount.length === 0;
  const entries: { writer: Writer; record: AuditRecord }[] = [];
  for (const push of stored) {
    const outcome = outcomes.get(push)!;
    const record = push.item.activity ? activityRecord(outcome, push.item) : { operation: 'contact.push', ...personRecord(outcome, push.item.origin.sourceId) };
    entries.push({ writer: push.item.writer, record });
  }
  // What is left depends on nothing else left, so it is one statement: the people's identities and
  // profiles, the activities' thread and topic links, the contacts (with what their new activities add to
  // their counts: one new version of each row), the organizations' member counts, the marks that have
  // their lead scores computed again (the contacts, and the organizations they left or joined) and the
  // audit entries.
  const { linked } = await writeTogether(
    trx,
    [
      ...people,
      topicLinks,
      contactTx.contactUpdates(
        communityId,
        refs.filter((ref) => !made.has(ref)).map((ref) => ({ id: ref.id!, fields: fieldsOf.get(ref) ?? {}, added: added.get(ref.id!) })),
        now,
      ),
      organizationTx.memberCountChanges(communityId, memberDeltas),
      leadScoreTx.scoringMarks(communityId, [
        ...refs.map((ref) => ({ entityType: 'contact' as const, entityId: ref.id! })),
        ...[...memberDeltas.keys()].map((id) => ({ entityType: 'organization' as const, entityId: id })),
      ]),
      auditTx.auditEntries(entries),
    ],
    { linked: threadLinks },
    { last },
  );
  // A link that closed a loop: the whole batch again, one push at a time (the caller), where it is refused.
  if (
    !last &&
    (await activityTx.threadLoops(
      trx,
      communityId,
      linked.map((row) => linkedActivity(row).id),
    ))
  )
    throw new ThreadLoop();
  await contactTx.refreshActivityStats(trx, communityId, recount);
  return run.map((push) => outcomes.get(push) ?? SUPPRESSED);
}

/**
 * The push that each activity of the run ends with (a repeat in the run updates the activity in place, so
 * its last push wins), in the order of each activity's first push, so IDs are handed out as pushes came.
 */
function lastPushOfEachActivity(stored: (ResolvedPush & { contact: ContactRef })[]): (ResolvedPush & { contact: ContactRef })[] {
  const rows = new Map<string, ResolvedPush & { contact: ContactRef }>();
  const firstAt = new Map<string, number>();
  for (const [index, push] of stored.entries()) {
    if (push.item.activity === null) continue;
    const key = activityKey(push.item);
    if (!firstAt.has(key)) firstAt.set(key, index);
    rows.delete(key);
    rows.set(key, push);
  }
  return [...rows.values()].sort((a, b) => firstAt.get(activityKey(a.item))! - firstAt.get(activityKey(b.item))!);
}

const activityKey = (item: PushItem) => `${item.origin.sourceId}\u0000${item.activity!.activityType}\u0000${item.activity!.externalId}`;

/** Adds an activity at `time` to what a contact's count and first and latest times gain. */
function addTo<K>(added: Map<K, contacts.AddedActivities>, contact: K, time: Date): void {
  const stats = added.get(contact);
  if (!stats) added.set(contact, { count: 1, first: time, latest: time });
  else {
    stats.count += 1;
    if (time < stats.first) stats.first = time;
    if (time > stats.latest) stats.latest = time;
  }
}

/**
 * The activities of the run (`last`: lastPushOfEachActivity of the stored pushes), upserted together, with
 * their topics and the run's new contacts (`madeContacts`, the insert of `madeRefs`, which have no ID yet):
 * each activity's row, and the new contacts' IDs in the order of `madeRefs`.
 */
async function upsertActivitiesOf(
  trx: Transaction<DB>,
  communityId: number,
  last: (ResolvedPush & { contact: ContactRef })[],
  madeRefs: ContactRef[],
  madeContacts: PlainWrite,
  now: Date,
): Promise<{ activities: { id: number; previousContactId: number | null }[]; madeContactIds: number[] }> {
  if (last.length === 0) return { activities: [], madeContactIds: [] };
  const subSourceKey = (item: PushItem) => `${item.origin.sourceId}\u0000${item.activity!.subSource}`;
  const wanted = new Map<string, { sourceId: number; name: string }>();
  for (const { item } of last) {
    if (item.activity!.subSource) wanted.set(subSourceKey(item), { sourceId: item.origin.sourceId, name: item.activity!.subSource });
  }
  const subSources = await activityTx.findOrCreateSubSources(trx, communityId, [...wanted.values()]);
  const madeAt = new Map(madeRefs.map((ref, index) => [ref, index + 1]));
  // The activities' topics are made in the statement that upserts them, so that the last statement, which
  // links them, sees them.
  return activityTx.upsertActivities(
    trx,
    communityId,
    last.map(({ item, contact }) => {
      const subSourceId = item.activity!.subSource ? (subSources.get(subSourceKey(item)) ?? null) : null;
      return { ...activityRow(item, 0, subSourceId), contactId: contact.id ?? { made: madeAt.get(contact)! } };
    }),
    now,
    [
      topicTx.topicsMade(
        communityId,
        last.flatMap(({ item }) => item.activity!.topics),
      ),
    ],
    madeContacts,
  );
}

/**
 * What the run's upserted activities (`upserted`, in the order of `last`, lastPushOfEachActivity of `stored`) add to the counts of contacts
 * that existed (`made` ones were written with theirs), the contacts to recount (those an activity that
 * existed left or joined: its time may have changed too), and the writes of their thread and topic links,
 * for the caller to run with its last writes; each push's outcome gets its activity, and the activity its
 * tags.
 */
async function linkActivities(
  trx: Transaction<DB>,
  communityId: number,
  stored: (ResolvedPush & { contact: ContactRef })[],
  last: (ResolvedPush & { contact: ContactRef })[],
  upserted: { id: number; previousContactId: number | null }[],
  made: Set<ContactRef>,
  outcomes: Map<ResolvedPush, PushOutcome>,
): Promise<{ added: Map<number, contacts.AddedActivities>; recount: number[]; topicLinks: Write; threadLinks: Write; mayLoop: boolean }> {
  const added = new Map<number, contacts.AddedActivities>();
  if (last.length === 0) return { added, recount: [], topicLinks: null, threadLinks: null, mayLoop: false };
  const pushes = stored.filter((push) => push.item.activity !== null);
  const idOf = new Map(last.map((push, index) => [activityKey(push.item), upserted[index]!.id]));
  const threadLinks = activityTx.threadLinks(
    communityId,
    last.map(({ item }, index) => ({ id: upserted[index]!.id, sourceId: item.origin.sourceId, ...item.activity! })),
  );
  const topicLinks = await topicTx.topicsOf(
    trx,
    communityId,
    last.map((push, index) => ({ activityId: upserted[index]!.id, names: push.item.activity!.topics, existed: upserted[index]!.previousContactId !== null })),
    { made: true },
  );

  const recount = new Set<number>();
  last.forEach(({ contact }, index) => {
    const previous = upserted[index]!.previousContactId;
    if (previous === null) return;
    recount.add(previous);
    recount.add(contact.id!);
  });
  last.forEach(({ item, contact }, index) => {
    if (made.has(contact) || upserted[index]!.previousContactId !== null || recount.has(contact.id!)) return;
    addTo(added, contact.id!, item.activity!.time);
  });

  for (const push of pushes) {
    const outcome = outcomes.get(push)!;
    outcome.activityId = idOf.get(activityKey(push.item))!;
    await applyTags(trx, push.item.origin, { type: 'activity', id: outcome.activityId }, push.item.activity!.tags, outcome.warnings);
  }
  // A loop needs an activity whose chain of parents goes on: one that names a parent, or one that was
  // stored before (it may have one). New activities that name none end their chains where they start.
  const mayLoop = last.some(({ item }, index) => item.activity!.parent !== null || upserted[index]!.previousContactId !== null);
  return { added, recount: [...recount], topicLinks, threadLinks, mayLoop };
}

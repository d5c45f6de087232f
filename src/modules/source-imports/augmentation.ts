import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { retryingTransaction } from '../../db/transaction.ts';
import { activityTopics } from '../activities/index.ts';
import { isJunkValue } from '../identity/index.ts';
import { organizationNameOf } from '../ingestion/index.ts';
import { interpretLocation, type Place } from '../locations/index.ts';
import { locationTx } from '../locations/index.ts';
import { isPersonalMailDomain, registrableDomain } from '../organizations/index.ts';
import { organizationTx } from '../organizations/index.ts';
import * as derive from './augmentation.repository.ts';
import { ImportStopped } from './file-import.ts';

/** Contacts per transaction: a handful of statements per batch, whatever its size. */
const CONTACT_BATCH = 500;
/** Activities per transaction (topic extraction costs up to tens of milliseconds an activity). */
const ACTIVITY_BATCH = 100;

export interface Augmentation {
  /** Contacts with a source profile or an activity of the source written since the last run. */
  contacts: number;
  /** Of those, contacts without an organization that got one, and the organizations made for them. */
  organizationsLinked: number;
  organizationsCreated: number;
  /** Contacts without a location that got one. */
  locationsSet: number;
  /** Activities of the source written since the last run that had text but no topic, and got topics. */
  activitiesTopiced: number;
}

export interface AugmentationRun {
  communityId: number;
  sourceId: number;
  /** The last run's time (null: never ran; everything the source touched counts). */
  since: Date | null;
  progress(progress: JsonValue): Promise<void>;
  signal: AbortSignal;
}

/**
 * Re-derives, where missing, what a push derives: the organization (from the company domain, a work email's
 * domain, or a company name that exactly one organization has), the location (the gazetteer over the pushed
 * location hints) and the topics of activities. Only for what the source touched since its last run, in
 * batches of contact or activity IDs: a few statements per batch, never one per record, never a scan of the
 * community. Derivations already present are left alone.
 */
export async function augmentSource(deps: { db: Kysely<DB>; clock: Clock }, run: AugmentationRun): Promise<Augmentation> {
  const { db, clock } = deps;
  const totals: Augmentation = { contacts: 0, organizationsLinked: 0, organizationsCreated: 0, locationsSet: 0, activitiesTopiced: 0 };
  // Between batches: lets HTTP requests in (the embedded database answers without I/O, so the event loop
  // would otherwise not turn until the job ends), and stops at a safe point when the worker is stopping.
  const stopIfAsked = async () => {
    await yieldToEventLoop();
    if (run.signal.aborted) throw new ImportStopped();
  };

  const contactIds = await derive.touchedContactIds(db, run.communityId, run.sourceId, run.since);
  totals.contacts = contactIds.length;
  for (let start = 0; start < contactIds.length; start += CONTACT_BATCH) {
    await stopIfAsked();
    const batch = contactIds.slice(start, start + CONTACT_BATCH);
    const done = await retryingTransaction(db, (trx) => deriveContacts(trx, run, batch, clock.now()));
    totals.organizationsLinked += done.organizationsLinked;
    totals.organizationsCreated += done.organizationsCreated;
    totals.locationsSet += done.locationsSet;
    await run.progress({ phase: 'augmenting', contactsDone: Math.min(start + CONTACT_BATCH, contactIds.length), ...totals });
  }

  let after: [string, number] | null = null;
  let checked = 0;
  for (;;) {
    await stopIfAsked();
    const page = await derive.activitiesWithoutTopics(db, run.communityId, run.sourceId, { since: run.since, after, limit: ACTIVITY_BATCH });
    if (page.length === 0) break;
    const links = page.flatMap((activity) => topicsOf(activity).map((name) => ({ activityId: activity.id, name })));
    if (links.length) {
      const read = page.map((activity) => ({ id: activity.id, updatedAt: activity.updatedAt }));
      totals.activitiesTopiced += await retryingTransaction(db, (trx) => derive.addActivityTopics(trx, run.communityId, read, links));
    }
    const last = page[page.length - 1]!;
    after = [last.updatedAt, last.id];
    checked += page.length;
    await run.progress({ phase: 'augmenting', contactsDone: contactIds.length, activitiesChecked: checked, ...totals });
  }
  return totals;
}

/** One batch of contacts, in one transaction: organizations, then locations. */
async function deriveContacts(trx: Transaction<DB>, run: AugmentationRun, contactIds: number[], now: Date) {
  const { communityId } = run;
  const states = await derive.derivationStates(trx, communityId, contactIds);
  const withoutOrganization = states.filter((state) => state.organizationId === null);
  const placeless = states.filter((state) => state.placeless);
  const done = { organizationsLinked: 0, organizationsCreated: 0, locationsSet: 0 };
  if (withoutOrganization.length === 0 && placeless.length === 0) return done;

  const needed = [...new Set([...withoutOrganization, ...placeless].map((state) => state.id))];
  const hints = groupBy(await derive.profileHints(trx, communityId, needed), (hint) => hint.contactId);

  if (withoutOrganization.length) {
    const emails = groupBy(
      await derive.emailIdentities(
        trx,
        communityId,
        withoutOrganization.map((state) => state.id),
      ),
      (email) => email.contactId,
    );
    const linked = await deriveOrganizations(trx, run, withoutOrganization, hints, emails, now);
    done.organizationsLinked = linked.links;
    done.organizationsCreated = linked.created;
  }

  const places: { contactId: number; place: Place }[] = [];
  for (const state of placeless) {
    // The newest profile that says anything about where the person is, as one push would have said it.
    const hint = (hints.get(state.id) ?? []).find((h) => h.rawLocation || h.city || h.region || h.country);
    const rawLocation = hint?.rawLocation ?? state.rawLocation;
    if (!rawLocation && !hint) continue;
    const place = interpretLocation({ rawLocation, city: hint?.city, region: hint?.region, country: hint?.country });
    if (place) places.push({ contactId: state.id, place });
  }
  const placed = new Set(await derive.setPlaces(trx, communityId, places, now));
  const joined = places
    .filter((entry) => placed.has(entry.contactId))
    .map(({ place }) => ({ city: place.city, region: place.region, country: place.country, worldRegion: place.worldRegion }));
  // They had no location: they join location rows and leave none.
  await locationTx.moveMembers(trx, communityId, [], joined);
  done.locationsSet = placed.size;
  return done;
}

/**
 * As at a push (docs/behaviour.md, Ingestion): the company domain, else a work email's domain, else a name one
 * organization has.
 */
async function deriveOrganizations(
  trx: Transaction<DB>,
  run: AugmentationRun,
  contacts: derive.DerivationState[],
  hints: Map<number, derive.ProfileHints[]>,
  emails: Map<number, { value: string }[]>,
  now: Date,
) {
  const { communityId } = run;
  const byDomain = new Map<number, string>();
  const byName = new Map<number, string>();
  const nameOfDomain = new Map<string, string>();
  for (const contact of contacts) {
    const profiles = hints.get(contact.id) ?? [];
    const companyName = contact.companyName ?? cleanName(profiles.find((hint) => cleanName(hint.companyName))?.companyName ?? null);
    const domain =
      firstOf(profiles, (hint) => (hint.companyDomain && !isJunkValue(hint.companyDomain) ? registrableDomain(hint.companyDomain) : null)) ??
      firstOf(emails.get(contact.id) ?? [], (email) => {
        const emailDomain = registrableDomain(email.value.split('@')[1]);
        return emailDomain && !isPersonalMailDomain(emailDomain) ? emailDomain : null;
      });
    if (domain) {
      byDomain.set(contact.id, domain);
      if (!nameOfDomain.has(domain)) nameOfDomain.set(domain, companyName ?? organizationNameOf(domain));
    } else if (companyName) {
      byName.set(contact.id, companyName.toLowerCase());
    }
  }

  const domains = [...new Set(byDomain.values())];
  let organizations = await derive.organizationsByDomain(trx, communityId, domains);
  const missing = domains.filter((domain) => !organizations.has(domain));
  const created = await derive.insertOrganizations(
    trx,
    communityId,
    run.sourceId,
    missing.map((domain) => ({ domain, name: nameOfDomain.get(domain)! })),
    now,
  );
  if (missing.length) organizations = await derive.organizationsByDomain(trx, communityId, domains);
  const named = await derive.onlyOrganizationsNamed(trx, communityId, [...new Set(byName.values())]);

  const links: { contactId: number; organizationId: number }[] = [];
  for (const [contactId, domain] of byDomain) {
    const organization = organizations.get(domain);
    if (organization) links.push({ contactId, organizationId: organization.id });
  }
  for (const [contactId, name] of byName) {
    const organizationId = named.get(name);
    if (organizationId !== undefined) links.push({ contactId, organizationId });
  }
  const linked = await derive.linkOrganizations(trx, communityId, links, now);
  await organizationTx.refreshMemberCounts(trx, communityId, [...new Set(linked.map((link) => link.organizationId))]);
  return { links: linked.length, created };
}

function topicsOf(activity: derive.UntopicedActivity): string[] {
  return activityTopics({
    title: activity.title ? { type: 'text', value: activity.title } : null,
    content: activity.content ? { type: activity.contentType ?? 'text', value: activity.content } : null,
  });
}

/** A pushed company name as a push keeps it: junk dropped, spaces collapsed. */
function cleanName(value: string | null): string | null {
  if (value === null || isJunkValue(value)) return null;
  return value.trim().replace(/\s+/g, ' ') || null;
}

function firstOf<T>(items: T[], pick: (item: T) => string | null): string | null {
  for (const item of items) {
    const value = pick(item);
    if (value) return value;
  }
  return null;
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/schema.ts';
import { invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, parseCoreId } from '../../core/ids.ts';
import { readTogether } from '../../core/lookups.ts';
import { findInvalidText } from '../../core/validation.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { identityHash, normalizeEmail } from '../identity/index.ts';
import { registrableDomain, organizationTx } from '../organizations/index.ts';
import { sourceTx } from '../sources/index.ts';
import * as visits from './website-visit.repository.ts';

/** How far ahead of the server's clock a visit may be dated (clocks of browsers and servers drift). */
const MAX_FUTURE_MS = 24 * 3_600_000;
const MAX_URL = 2_000;
const MAX_ANONYMOUS_ID = 200;

/** One visit as read from the request, before the visitor is looked up. */
interface ReadVisit {
  url: string;
  visitTime: Date;
  email: string | null;
  contactId: number | null;
  anonymousId: string | null;
  domain: string | null;
  warnings: string[];
}

type ItemResult =
  | { index: number; status: 'accepted'; id: string; contactId: string | null; organizationId: string | null; warnings: string[] }
  | { index: number; status: 'rejected'; errors: string[] };

/** Reads one item: the visit, or every reason it cannot be one. */
function readVisit(item: unknown, now: Date): { visit: ReadVisit } | { errors: string[] } {
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    return { errors: ['an item is an object {url, visitTime, email | contactId | anonymousId, organizationDomain?}'] };
  const given = item as Record<string, unknown>;
  const invalid = findInvalidText(given);
  if (invalid) return { errors: [`${invalid.path}: ${invalid.problem}`] };
  const errors: string[] = [];
  const warnings: string[] = [];
  const known = new Set(['url', 'visitTime', 'email', 'contactId', 'anonymousId', 'organizationDomain']);
  for (const key of Object.keys(given)) if (!known.has(key)) warnings.push(`${key}: not a field of a website visit; ignored`);

  let url = '';
  if (typeof given.url !== 'string' || !given.url.trim()) errors.push('url: required, the page visited (http or https)');
  else if (given.url.length > MAX_URL) errors.push(`url: at most ${MAX_URL} characters`);
  else {
    try {
      const parsed = new URL(given.url.trim());
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') errors.push(`url: "${given.url}" is not an http or https URL`);
      else url = parsed.toString();
    } catch {
      errors.push(`url: "${given.url}" is not a URL`);
    }
  }

  let visitTime = now;
  if (given.visitTime !== undefined && given.visitTime !== null) {
    const parsed = typeof given.visitTime === 'string' ? new Date(given.visitTime) : new Date(NaN);
    if (typeof given.visitTime !== 'string' || Number.isNaN(parsed.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(given.visitTime)) {
      errors.push(`visitTime: "${String(given.visitTime)}" is not a date-time (ISO 8601, e.g. 2026-11-27T09:30:00Z)`);
    } else if (parsed.getTime() > now.getTime() + MAX_FUTURE_MS) errors.push(`visitTime: ${given.visitTime} is more than a day ahead`);
    else visitTime = parsed;
  }

  const visitors = ['email', 'contactId', 'anonymousId'].filter((key) => given[key] !== undefined && given[key] !== null);
  if (visitors.length !== 1)
    errors.push(`exactly one of email, contactId and anonymousId says who visited${visitors.length ? `; got ${visitors.join(', ')}` : ''}`);
  let email: string | null = null;
  let contactId: number | null = null;
  let anonymousId: string | null = null;
  if (given.email !== undefined && given.email !== null) {
    const normalized = normalizeEmail(given.email);
    if (normalized.ok) email = normalized.identity.value;
    else errors.push(`email: ${normalized.reason}`);
  }
  if (given.contactId !== undefined && given.contactId !== null) {
    try {
      contactId = parseCoreId('contact', given.contactId as string | number);
    } catch {
      errors.push(`contactId: "${String(given.contactId)}" is not a contact ID (c_N or N)`);
    }
  }
  if (given.anonymousId !== undefined && given.anonymousId !== null) {
    const problem = anonymousIdProblem(given.anonymousId);
    if (problem) errors.push(problem);
    else anonymousId = (given.anonymousId as string).trim();
  }

  let domain: string | null = null;
  if (given.organizationDomain !== undefined && given.organizationDomain !== null) {
    domain = registrableDomain(given.organizationDomain);
    if (!domain) warnings.push(`organizationDomain: "${String(given.organizationDomain)}" is not a domain; ignored`);
  }
  if (errors.length) return { errors };
  return { visit: { url, visitTime, email, contactId, anonymousId, domain, warnings } };
}

/** Why an anonymous ID is not one, or null. */
export function anonymousIdProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !value.trim() || value.length > MAX_ANONYMOUS_ID)
    return `anonymousId: a non-empty string of at most ${MAX_ANONYMOUS_ID} characters`;
  return null;
}

/**
 * Website visits, from a source's pushes (POST /community/v1/source/{id}/website-visits; up to
 * 1,000 a request) and from its website tracker (a page view at a time): each item is checked by itself,
 * visitors are found among the community's contacts (by ID, a merged ID finding the survivor, by email
 * identity, or by an anonymous ID the site identified) and organizations by domain, or else the contact's
 * organization; nothing is created. A visit of an unknown email is kept without a contact, with a warning.
 * Stored in one statement, once per visitor, page and time.
 */
export function createWebsiteVisitPushService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  /** Reads, links and stores visits of a source; with a writer (the push route) the write is audited. */
  async function store(communityId: number, sourceId: number, items: unknown[], writer: Writer | null) {
    const now = clock.now();
    const read = items.map((item) => readVisit(item, now));
    const good = read.flatMap((entry, index) => ('visit' in entry ? [{ index, visit: entry.visit }] : []));
    const wanted = <T>(pick: (visit: ReadVisit) => T | null): T[] => [
      ...new Set(good.map(({ visit }) => pick(visit)).filter((value): value is T => value !== null)),
    ];
    const { byDomain } = await readTogether(db, {
      byDomain: organizationTx.organizationsByDomains(
        communityId,
        wanted((visit) => visit.domain),
      ),
    });
    const byId = await visits.currentContacts(
      db,
      communityId,
      wanted((visit) => visit.contactId),
    );
    const byEmail = await visits.contactsByEmail(
      db,
      communityId,
      wanted((visit) => visit.email),
    );
    const byAnonymous = await visits.visitorsOf(
      db,
      communityId,
      wanted((visit) => visit.anonymousId),
    );
    // A browser identified by an address Hearth did not know then: linked as soon as a visit finds its contact.
    const waiting = [...byAnonymous].filter(([, visitor]) => visitor.contactId === null && visitor.email !== null);
    const found = await visits.contactsByEmail(db, communityId, [...new Set(waiting.map(([, visitor]) => visitor.email!))]);
    const links: { anonymousId: string; contactId: number; organizationId: number | null }[] = [];
    for (const [anonymousId, visitor] of waiting) {
      const contact = found.get(visitor.email!);
      if (!contact) continue;
      visitor.contactId = contact.id;
      visitor.organizationId = contact.organizationId;
      links.push({ anonymousId, contactId: contact.id, organizationId: contact.organizationId });
    }

    const results: ItemResult[] = new Array(items.length);
    read.forEach((entry, index) => {
      if ('errors' in entry) results[index] = { index, status: 'rejected', errors: entry.errors };
    });
    const rows: visits.NewVisit[] = [];
    const accepted: { index: number; row: visits.NewVisit; warnings: string[] }[] = [];
    for (const { index, visit } of good) {
      const warnings = [...visit.warnings];
      let contact: { id: number; organizationId: number | null } | undefined;
      if (visit.contactId !== null) {
        contact = byId.get(visit.contactId);
        if (!contact) {
          results[index] = { index, status: 'rejected', errors: [`contactId: no contact ${formatId('contact', visit.contactId)}`] };
          continue;
        }
      } else if (visit.email !== null) {
        contact = byEmail.get(visit.email);
        if (!contact) warnings.push('email: no contact has this address; the visit is kept without a contact');
      } else if (visit.anonymousId !== null) {
        const visitor = byAnonymous.get(visit.anonymousId);
        if (visitor?.contactId) contact = { id: visitor.contactId, organizationId: visitor.organizationId };
      }
      const organization = visit.domain ? byDomain.get(visit.domain) : undefined;
      if (visit.domain && !organization) warnings.push(`organizationDomain: no organization has the domain ${visit.domain}`);
      const row = {
        url: visit.url,
        visitTime: visit.visitTime,
        contactId: contact?.id ?? null,
        anonymousId: visit.anonymousId,
        organizationId: organization?.id ?? contact?.organizationId ?? null,
      };
      rows.push(row);
      accepted.push({ index, row, warnings });
    }

    // One statement needs no transaction of its own: a page view of the tracker, most often (three round
    // trips of five; docs/performance.md).
    const ids =
      links.length === 0 && !writer
        ? await visits.insertVisits(db, communityId, sourceId, rows, now)
        : await db.transaction().execute(async (trx) => {
            await visits.linkVisits(trx, communityId, links);
            const stored = await visits.insertVisits(trx, communityId, sourceId, rows, now);
            if (stored.length && writer) {
              await auditTx.recordWrite(trx, writer, {
                operation: 'website_visit.push',
                entityIds: [...new Set(stored)].slice(0, 100).map((id) => formatId('website_visit', id)),
                detail: { sourceId, visits: stored.length },
              });
            }
            return stored;
          });
    accepted.forEach(({ index, row, warnings }, position) => {
      results[index] = {
        index,
        status: 'accepted',
        id: formatId('website_visit', ids[position]!),
        contactId: row.contactId === null ? null : formatId('contact', row.contactId),
        organizationId: row.organizationId === null ? null : formatId('organization', row.organizationId),
        warnings,
      };
    });
    return { status: 'accepted' as const, accepted: accepted.length, rejected: items.length - accepted.length, results };
  }

  return {
    async push(writer: Writer, sourceId: number, items: unknown[]) {
      if (!(await sourceTx.findSource(db, writer.communityId, sourceId))) throw notFound('source_not_found', `no source ${sourceId}`);
      return store(writer.communityId, sourceId, items, writer);
    },

    /**
     * One page view from a source's website tracker (the caller found the source by its key): a visit of an
     * anonymous browser, stored and linked as a pushed one is. Not audited: its writer is any visitor of the
     * site, and the audit log names who changed the data, not who browsed.
     */
    async recordPageView(communityId: number, sourceId: number, view: { url: string; anonymousId: string }) {
      const answer = await store(communityId, sourceId, [{ url: view.url, anonymousId: view.anonymousId }], null);
      const result = answer.results[0]!;
      if (result.status === 'rejected') throw invalidParameters(result.errors.join('; '));
      return result;
    },

    /**
     * The site says who a browser is. `verified`: the call was signed with the tracker's secret, or its
     * tracker allows unsigned calls; then the browser's earlier visits become the contact's, and so do its
     * later ones, and an address Hearth does not know yet is kept, the visits linked once a visit finds its
     * contact. Otherwise (`held`) the claim is kept apart for its source and links nothing. Either way one
     * statement, the same whether or not the address is a contact's: neither the answer nor the work says.
     */
    async identify(communityId: number, claim: { anonymousId: string; email: unknown; sourceId: number; trust: 'signed' | 'allowed' | 'held' }): Promise<void> {
      const problem = anonymousIdProblem(claim.anonymousId);
      if (problem) throw invalidParameters(problem);
      const normalized = normalizeEmail(claim.email);
      if (!normalized.ok) throw invalidParameters(`email: ${normalized.reason}`);
      const email = normalized.identity.value;
      const anonymousId = claim.anonymousId.trim();
      // An address erased on request (it is on the suppression list) is not brought back by a page.
      const suppressed = { type: normalized.identity.type, hash: identityHash(normalized.identity) };
      if (claim.trust === 'held') {
        await visits.holdUnverifiedVisitor(db, communityId, { sourceId: claim.sourceId, anonymousId, email, suppressed }, clock.now());
      } else {
        await visits.identifyVisitor(db, communityId, { anonymousId, email, verified: claim.trust === 'signed', suppressed }, clock.now());
      }
    },
  };
}

export type WebsiteVisitPushService = ReturnType<typeof createWebsiteVisitPushService>;

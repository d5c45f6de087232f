import { domainToASCII } from 'node:url';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import type { Cols } from '../../core/list-query.ts';
import { readTogether } from '../../core/lookups.ts';
import type { Writer } from '../../core/writer.ts';
import { auditTx } from '../audit/index.ts';
import { identityKey, normalizeEmail, normalizeHandle, type Identity } from '../identity/index.ts';
import { registrableDomain, organizationTx } from '../organizations/index.ts';
import { privacyTx } from '../privacy/index.ts';
import * as committees from './buying-committee.repository.ts';
import type { Committee, CommitteeRank, ContactCandidate, ProspectorCandidate } from './buying-committee.repository.ts';
import { CANDIDATES_PER_GROUP, MAX_RANKS } from './buying-committee.schemas.ts';
import { createTitleClassifier } from './title-classifier.ts';
import { DEPARTMENT_KEYS, SENIORITY_KEYS } from './title-rules.ts';

export type { Committee, CommitteeRank } from './buying-committee.repository.ts';

const KEY = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_NAME = 200;
/** Rank IDs are stored as PostgreSQL integers. */
const MAX_RANK_ID = 2_147_483_647;

function notConfigured(): never {
  throw notFound('buying_committee_not_found', 'this community has no buying committee (an admin sets one with PUT /api/v2/admin/buying-committee)');
}

/**
 * Every fault of a committee's seniorities or departments, named by place; the ranks as stored (names
 * trimmed); and warnings for keys the title classifier does not know.
 */
function checkRanks(given: CommitteeRank[], list: 'seniorities' | 'departments', faults: string[], warnings: string[]): CommitteeRank[] {
  const known: readonly string[] = list === 'seniorities' ? SENIORITY_KEYS : DEPARTMENT_KEYS;
  if (given.length === 0) faults.push(`${list} must not be empty`);
  if (given.length > MAX_RANKS) faults.push(`${list} has ${given.length} entries; a committee has at most ${MAX_RANKS}`);
  const ids = new Map<number, number>();
  const keys = new Map<string, number>();
  return given.map((rank, index) => {
    const at = `${list}[${index}]`;
    if (!Number.isInteger(rank.id) || rank.id < 1 || rank.id > MAX_RANK_ID) faults.push(`${at}.id must be a positive integer up to ${MAX_RANK_ID}`);
    else if (ids.has(rank.id)) faults.push(`${at}.id ${rank.id} is ${list}[${ids.get(rank.id)}].id already`);
    else ids.set(rank.id, index);
    if (!KEY.test(rank.key)) faults.push(`${at}.key ${JSON.stringify(rank.key)} must be lowercase letters, digits and _, starting with a letter (at most 64)`);
    else if (keys.has(rank.key)) faults.push(`${at}.key "${rank.key}" is ${list}[${keys.get(rank.key)}].key already`);
    else {
      keys.set(rank.key, index);
      if (!known.includes(rank.key))
        warnings.push(`${at}.key "${rank.key}" is not a key of the title classifier (${known.join(', ')}): its cells will have no candidates`);
    }
    const name = rank.name.trim();
    if (!name) faults.push(`${at}.name must not be empty`);
    else if (name.length > MAX_NAME) faults.push(`${at}.name is longer than ${MAX_NAME} characters`);
    return { id: rank.id, key: rank.key, name };
  });
}

/** Reads `organizationId`: required, `o_<number>`. */
function organizationKey(value: string | undefined): number {
  const prefix = ID_PREFIXES.organization;
  const key = value !== undefined && value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
  if (key !== null) return key;
  if (value === undefined) throw new HearthError('invalid_organization_id', 'organizationId is required (o_<number>)');
  throw new HearthError('invalid_organization_id', `"${value}" is not a valid organization ID (expected o_<number>)`, { invalidIds: [value] });
}

/** A candidate of a cell, as the API shows it, with what ranks it. */
interface Candidate {
  id: string;
  source: 'contact' | 'prospector';
  key: number;
  name: string;
  title: string;
  email: string | null;
  linkedInHandle: string | null;
  activityCountAll: number;
  latestActivityTime: Date | null;
}

/** Engagement: most activities first; at equal counts contacts before prospector contacts, then by ID. */
function byEngagement(a: Candidate, b: Candidate): number {
  return b.activityCountAll - a.activityCountAll || (a.source === b.source ? 0 : a.source === 'contact' ? -1 : 1) || a.key - b.key;
}

/** Recency: latest activity first, then by ID. */
function byRecency(a: Candidate, b: Candidate): number {
  return b.latestActivityTime!.getTime() - a.latestActivityTime!.getTime() || a.key - b.key;
}

const present = (candidate: Candidate, rankedBy: 'engagement' | 'recency') => ({
  id: candidate.id,
  source: candidate.source,
  name: candidate.name,
  title: candidate.title,
  email: candidate.email,
  linkedInHandle: candidate.linkedInHandle,
  activityCountAll: candidate.activityCountAll,
  latestActivityTime: candidate.latestActivityTime?.toISOString() ?? null,
  rankedBy,
});

/** The identities (email, LinkedIn) a prospector contact names, normalized as contacts' are. */
function identitiesOf(person: ProspectorCandidate): Identity[] {
  const found: Identity[] = [];
  const email = person.email ? normalizeEmail(person.email) : null;
  if (email?.ok) found.push(email.identity);
  const linkedin = person.linkedinHandle ? normalizeHandle('linkedin', person.linkedinHandle) : null;
  if (linkedin?.ok) found.push(linkedin.identity);
  return found;
}

export function createBuyingCommitteeService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  const classify = createTitleClassifier();

  return {
    /** GET /api/v2/admin/buying-committee. */
    async get(communityId: number): Promise<Committee> {
      return (await committees.readCommittee(db, communityId)) ?? notConfigured();
    },

    /**
     * PUT /api/v2/admin/buying-committee: replaces the community's committee in one transaction. Every fault
     * is named in one 400; keys the title classifier does not know are accepted, with a warning.
     */
    async set(writer: Writer, given: Committee): Promise<{ committee: Committee; warnings: string[] }> {
      const faults: string[] = [];
      const warnings: string[] = [];
      const committee = {
        seniorities: checkRanks(given.seniorities, 'seniorities', faults, warnings),
        departments: checkRanks(given.departments, 'departments', faults, warnings),
      };
      if (faults.length) throw invalidParameters(faults.join('; '));
      await db.transaction().execute(async (trx) => {
        await committees.replaceCommittee(trx, writer.communityId, committee);
        await auditTx.recordWrite(trx, writer, { operation: 'buying_committee.set', entityIds: [], detail: committee as unknown as Record<string, unknown> });
      });
      return { committee, warnings };
    },

    /** DELETE /api/v2/admin/buying-committee: the committee removed. */
    async remove(writer: Writer): Promise<Committee> {
      return db.transaction().execute(async (trx) => {
        const committee = (await committees.readCommittee(trx, writer.communityId)) ?? notConfigured();
        await committees.deleteCommittee(trx, writer.communityId);
        await auditTx.recordWrite(trx, writer, {
          operation: 'buying_committee.remove',
          entityIds: [],
          detail: committee as unknown as Record<string, unknown>,
        });
        return committee;
      });
    },

    /**
     * GET /api/v2/buying-committee-cells: every seniority by every department of the committee, in that
     * order, each with the organization's candidates whose title classifies into it.
     */
    async cells(communityId: number, query: { organizationId?: string; cols: Cols }) {
      const organizationId = organizationKey(query.organizationId);
      const [organization, committee] = await Promise.all([
        organizationTx.findOrganization(db, communityId, organizationId),
        committees.readCommittee(db, communityId),
      ]);
      if (!organization) throw notFound('org_not_found', `organization ${formatId('organization', organizationId)} not found`);
      if (!committee) notConfigured();

      const domain = organization.primaryDomain;
      const spellings = [...new Set([domain, domainToASCII(domain)].filter(Boolean))];
      const [contacts, prospects] = await Promise.all([
        committees.organizationContacts(db, communityId, organizationId),
        domain ? committees.prospectorContactsOnDomain(db, spellings) : Promise.resolve([]),
      ]);

      // Each candidate goes to the cell of its title's class, when the committee has that cell.
      const seniorityKeys = new Set(committee.seniorities.map((rank) => rank.key));
      const departmentKeys = new Set(committee.departments.map((rank) => rank.key));
      const cellOf = (title: string): string | null => {
        const { seniority, department } = classify(title);
        return seniority && department && seniorityKeys.has(seniority) && departmentKeys.has(department) ? `${seniority}/${department}` : null;
      };
      const groups = new Map<string, { contacts: Candidate[]; prospects: { candidate: Candidate; identities: Identity[] }[] }>();
      const groupOf = (cell: string) => groups.get(cell) ?? groups.set(cell, { contacts: [], prospects: [] }).get(cell)!;
      for (const contact of contacts) {
        const cell = cellOf(contact.title);
        if (cell) groupOf(cell).contacts.push(contactCandidate(contact));
      }
      for (const person of prospects) {
        const cell = registrableDomain(person.website) === domain ? cellOf(person.title) : null;
        if (cell) groupOf(cell).prospects.push({ candidate: prospectCandidate(person), identities: identitiesOf(person) });
      }

      // Contacts outrank prospector contacts in both groups (these have no activity), so contacts are picked first.
      const picks = new Map<string, { engaged: Candidate[]; recent: Candidate[] }>();
      for (const [cell, group] of groups) {
        const engaged = [...group.contacts].sort(byEngagement).slice(0, CANDIDATES_PER_GROUP);
        const recent = group.contacts
          .filter((candidate) => candidate.latestActivityTime !== null && !engaged.includes(candidate))
          .sort(byRecency)
          .slice(0, CANDIDATES_PER_GROUP);
        picks.set(cell, { engaged, recent });
      }

      // Prospector contacts fill the engagement places left, unless they are one of the organization's
      // contacts (by email or LinkedIn) or asked to be erased from this community.
      const openCells = [...groups].filter(([cell, group]) => group.prospects.length > 0 && picks.get(cell)!.engaged.length < CANDIDATES_PER_GROUP);
      const identities = openCells.flatMap(([, group]) => group.prospects.flatMap((prospect) => prospect.identities));
      const shown = [...picks.values()].flatMap((pick) => [...pick.engaged, ...pick.recent]).map((candidate) => candidate.key);
      const found = await readTogether(db, {
        known: committees.identitiesOfOrganization(communityId, organizationId, identities),
        suppressed: privacyTx.suppressedAmong(communityId, identities),
        linkedin: committees.linkedinHandlesOf(communityId, shown),
      });
      for (const pick of picks.values()) {
        for (const candidate of [...pick.engaged, ...pick.recent]) candidate.linkedInHandle = found.linkedin.get(candidate.key) ?? null;
      }
      for (const [cell, group] of openCells) {
        const engaged = picks.get(cell)!.engaged;
        const welcome = group.prospects
          .filter((prospect) => !prospect.identities.some((identity) => found.known.has(identityKey(identity)) || found.suppressed.has(identityKey(identity))))
          .map((prospect) => prospect.candidate)
          .sort(byEngagement);
        engaged.push(...welcome.slice(0, CANDIDATES_PER_GROUP - engaged.length));
      }

      const data = committee.seniorities.flatMap((seniority) =>
        committee.departments.map((department) => {
          const pick = picks.get(`${seniority.key}/${department.key}`);
          return {
            id: `bcc_${seniority.id}_${department.id}`,
            seniority,
            department,
            contacts: pick ? [...pick.engaged.map((each) => present(each, 'engagement')), ...pick.recent.map((each) => present(each, 'recency'))] : [],
          };
        }),
      );
      return { data, meta: { nextCursor: null, ...(query.cols.recordCount ? { recordCount: data.length } : {}) } };
    },
  };
}

function contactCandidate(contact: ContactCandidate): Candidate {
  return {
    id: formatId('contact', Number(contact.id)),
    source: 'contact',
    key: Number(contact.id),
    name: contact.name,
    title: contact.title,
    email: contact.email,
    linkedInHandle: null,
    activityCountAll: contact.activityCount,
    latestActivityTime: contact.latestActivityAt,
  };
}

function prospectCandidate(person: ProspectorCandidate): Candidate {
  const linkedin = person.linkedinHandle ? normalizeHandle('linkedin', person.linkedinHandle) : null;
  return {
    id: formatId('prospector_contact', Number(person.id)),
    source: 'prospector',
    key: Number(person.id),
    name: person.name,
    title: person.title,
    // Prospector emails are withheld (docs/behaviour.md, Record fields).
    email: null,
    linkedInHandle: linkedin?.ok ? linkedin.identity.display : null,
    activityCountAll: 0,
    latestActivityTime: null,
  };
}

export type BuyingCommitteeService = ReturnType<typeof createBuyingCommitteeService>;

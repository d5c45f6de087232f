import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { invalidParameters } from '../../core/errors.ts';
import { grants } from '../../core/scopes.ts';
import {
  contactExactMatches,
  contactNameMatches,
  contactPrefixMatches,
  contactPrefixWalk,
  CANDIDATES,
  hasNameTrigrams,
  organizationNameMatches,
  organizationPrefixMatches,
  segmentMatches,
  type ContactHit,
  type OrganizationHit,
  type SegmentHit,
} from './search.repository.ts';
import { MAX_QUERY_LENGTH, searchTerms, type SearchTerms } from './search-rules.ts';

export interface SearchResults {
  contacts: ContactHit[];
  organizations: OrganizationHit[];
  segments: SegmentHit[];
}

/**
 * Search everywhere (docs/reading.md, "Search"): contacts by name, email and handle, organizations by name
 * and domain, segments by name, as a person types. Each kind is searched only when the caller may read it.
 */
export function createSearchService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  // Whether the engine had pg_trgm for migration 0046: read once, and again after a failed read.
  let trigrams: Promise<boolean> | null = null;
  const hasTrigrams = () =>
    (trigrams ??= hasNameTrigrams(db).catch((error: unknown) => {
      trigrams = null;
      throw error;
    }));

  /**
   * Prefix matches first; names that match further in only when those leave room, and only through the
   * trigram index (without it, a word-prefix match would read every name of the community).
   */
  async function twoStages<T extends { id: number }>(first: () => Promise<T[]>, second: (found: number[]) => Promise<T[]>, limit: number): Promise<T[]> {
    const found = await first();
    if (found.length >= limit || !(await hasTrigrams())) return found;
    return [...found, ...(await second(found.map((hit) => hit.id)))];
  }

  /**
   * Exact matches, then prefix matches most active first: from the indexes of names and values when the
   * prefix starts a few hundred contacts at most; else (a short or common prefix: "a", "rob") from a walk of
   * the most active contacts, which finds the few wanted within dozens of rows; else (a common prefix of
   * quiet contacts only) from the indexes after all.
   */
  async function contactsByPrefix(communityId: number, terms: SearchTerms, limit: number): Promise<ContactHit[]> {
    const [exact, indexed] = await Promise.all([
      contactExactMatches(db, communityId, terms, limit),
      contactPrefixMatches(db, communityId, terms, limit, CANDIDATES),
    ]);
    let prefix = indexed;
    if (prefix === null) {
      const walked = await contactPrefixWalk(db, communityId, terms, limit);
      prefix = walked.length >= limit ? walked : ((await contactPrefixMatches(db, communityId, terms, limit, null)) ?? []);
    }
    const seen = new Set(exact.map((hit) => hit.id));
    return [...exact, ...prefix.filter((hit) => !seen.has(hit.id))].slice(0, limit);
  }

  return {
    async search(caller: { communityId: number; scopes: readonly string[] }, query: string, limit: number): Promise<SearchResults> {
      if (query.trim() === '') throw invalidParameters('query must hold at least 1 character other than spaces');
      if ([...query].length > MAX_QUERY_LENGTH) throw invalidParameters(`query must hold at most ${MAX_QUERY_LENGTH} characters`);
      const terms: SearchTerms = searchTerms(query);
      const { communityId, scopes } = caller;
      const [contacts, organizations, segments] = await Promise.all([
        grants(scopes, 'contacts:read')
          ? twoStages(
              () => contactsByPrefix(communityId, terms, limit),
              (found) => contactNameMatches(db, communityId, terms, limit - found.length, found),
              limit,
            )
          : [],
        grants(scopes, 'organizations:read')
          ? twoStages(
              () => organizationPrefixMatches(db, communityId, terms, limit),
              (found) => organizationNameMatches(db, communityId, terms, limit - found.length, found),
              limit,
            )
          : [],
        grants(scopes, 'segments:read') ? segmentMatches(db, communityId, terms, limit) : [],
      ]);
      return { contacts, organizations, segments };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;

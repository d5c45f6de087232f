import type { Cols } from '../../core/list-query.ts';
import { formatId } from '../../core/ids.ts';
import { presentKeyFactors, presentLeadScores } from '../lead-scores/index.ts';
import type { StoredScore } from '../lead-scores/index.ts';
import type { JobOpeningRow, NewsRow, OrganizationRow, ResearchResultRow, TopContactRow } from './organization-read.repository.ts';
import type { OrganizationCol } from './organization.schemas.ts';

/** The opt-in values loaded for a page, by organization ID; a map is absent when its column was not asked for. */
export interface PageValues {
  customFields?: Map<number, Record<string, { type: string; value: unknown }>>;
  scores?: Map<number, StoredScore[]>;
  jobOpenings?: Map<number, JobOpeningRow[]>;
  news?: Map<number, NewsRow[]>;
  topContacts?: Map<number, TopContactRow[]>;
  surgingTopics?: Map<number, string[]>;
  tags?: Map<number, number[]>;
  researchResults?: Map<number, ResearchResultRow[]>;
}

/** A v2 organization: the always-returned fields, then each opt-in column that `cols` names. */
export function presentOrganization(row: OrganizationRow, cols: Cols, values: PageValues, publicUrl: string) {
  const id = formatId('organization', row.id);
  const opt = <C extends OrganizationCol, T>(col: C, value: () => T) => (cols.names.has(col) ? { [col]: value() } : {}) as { [K in C]?: T };
  return {
    id,
    name: row.name,
    primaryDomain: row.primaryDomain,
    ...opt('about', () => row.about),
    ...opt('contactsCount', () => row.contactsCount),
    ...opt('employees', () => row.employees),
    ...opt('linkedInUrl', () => row.linkedInUrl),
    ...opt('profiles', () => profilesOf(row)),
    ...opt('revenueRangeMin', () => row.revenueRangeMin),
    ...opt('revenueRangeMax', () => row.revenueRangeMax),
    ...opt('subIndustry', () => row.subIndustry),
    ...opt('location', () => placeOf(row)),
    ...(values.customFields ? { customFields: values.customFields.get(row.id) ?? {} } : {}),
    ...opt('leadScores', () => presentLeadScores(values.scores?.get(row.id))),
    ...opt('leadScoreKeyFactors', () => presentKeyFactors(values.scores?.get(row.id))),
    ...opt('researchResults', () =>
      (values.researchResults?.get(row.id) ?? []).map((result) => ({
        promptId: result.promptId,
        answer: result.answer,
        isPrimaryPrompt: result.isPrimaryPrompt,
        promptName: result.promptName,
      })),
    ),
    ...opt('recentJobOpenings', () => (values.jobOpenings?.get(row.id) ?? []).map(presentJobOpening)),
    ...opt('recentNews', () => (values.news?.get(row.id) ?? []).map(presentNews)),
    ...opt('surgingTopics', () => values.surgingTopics?.get(row.id) ?? []),
    ...opt('topContacts', () => (values.topContacts?.get(row.id) ?? []).map((contact) => ({ id: formatId('contact', contact.id), name: contact.name }))),
    ...opt('tags', () => (values.tags?.get(row.id) ?? []).map((tagId) => formatId('tag', tagId))),
    ...opt('url', () => `${publicUrl}/organizations/${id}`),
  };
}

/** `location`: null when nothing of it is known, as for any field without a value. */
function placeOf(row: OrganizationRow) {
  if (row.city === null && row.region === null && row.country === null) return null;
  return { city: row.city, region: row.region, country: row.country };
}

/**
 * `profiles`, derived from what an organization stores: its website (the primary domain, which every
 * organization has) and its LinkedIn page when known. `name` is what the profile is known by there.
 */
export function profilesOf(row: Pick<OrganizationRow, 'primaryDomain' | 'linkedInUrl'>) {
  const profiles = [{ name: row.primaryDomain, type: 'website', url: `https://${row.primaryDomain}` }];
  if (row.linkedInUrl) profiles.push({ name: linkedInHandle(row.linkedInUrl) ?? row.linkedInUrl, type: 'linkedin', url: row.linkedInUrl });
  return profiles;
}

/** `acme` of `https://www.linkedin.com/company/acme/about`; the last path segment of other LinkedIn URLs. */
function linkedInHandle(url: string): string | null {
  let path: string[];
  try {
    path = new URL(url).pathname.split('/').filter((part) => part.length > 0);
  } catch {
    return null;
  }
  const after = path.findIndex((part) => ['company', 'school', 'showcase'].includes(part.toLowerCase()));
  const handle = after >= 0 ? path[after + 1] : path[path.length - 1];
  if (!handle) return null;
  try {
    return decodeURIComponent(handle);
  } catch {
    return handle;
  }
}

function presentJobOpening(row: JobOpeningRow) {
  return {
    jobTitle: row.jobTitle,
    jobDescription: row.jobDescription,
    firstSeenAt: row.firstSeenAt.toISOString(),
    isClosed: row.isClosed,
    location: row.location,
    url: row.url,
  };
}

function presentNews(row: NewsRow) {
  return { title: row.title, publishedAt: row.publishedAt.toISOString(), category: row.category, articleSentence: row.articleSentence, url: row.url };
}

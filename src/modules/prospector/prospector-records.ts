import countries from 'i18n-iso-countries';
import Type, { type Static, type TSchema } from 'typebox';
import { compileBodyValidator, describeValidation, findInvalidText } from '../../core/validation.ts';
import { normalizeHandle } from '../identity/index.ts';
import { registrableDomain } from '../organizations/index.ts';
import type { CompanyValues } from './prospector-company.repository.ts';
import type { ContactValues } from './prospector-contact.repository.ts';

/**
 * The records a prospector import takes (docs/prospector.md), and what each becomes once read: every
 * check that needs no database. A record is checked on its own and every fault of it is named, so one
 * answer can name every bad record of a request.
 */

/** The most records one import request takes. */
export const MAX_RECORDS_PER_IMPORT = 10_000;

const MAX_INT = 2_147_483_647;
const text = (maxLength: number, description?: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength, ...(description ? { description } : {}) }), Type.Null()]));
const count = (description: string) => Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: MAX_INT, description }), Type.Null()]));
const amount = (description: string) => Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1e15, description }), Type.Null()]));
const strings = (maxItems: number, maxLength: number, description: string) => Type.Optional(Type.Array(Type.String({ maxLength }), { maxItems, description }));

export const CompanyRecordSchema = Type.Object(
  {
    domain: text(
      2048,
      'The key: a domain, host or URL, reduced to its registrable domain (`https://www.acme.co.uk/` is `acme.co.uk`). Absent: the domain of `primaryWebsite`.',
    ),
    name: Type.String({ minLength: 1, maxLength: 500 }),
    description: text(20_000),
    primaryWebsite: text(2048, 'Default: `https://<domain>`.'),
    logoUrl: text(2048),
    industry: Type.Optional(
      Type.Union([
        Type.Integer({ minimum: 0, maximum: 999_999, description: 'A NAICS 2022 code (GET /api/v2/industries).' }),
        Type.String({ maxLength: 20, description: 'The same as `naics_<code>`.' }),
        Type.Null(),
      ]),
    ),
    subIndustry: text(500),
    employees: count('Number of employees.'),
    raised: amount('Capital raised.'),
    linkedInHandles: strings(50, 500, 'LinkedIn company pages: `acme` or `https://www.linkedin.com/company/acme`.'),
    technologies: strings(1000, 200, 'Products of the technographic catalog (GET /api/v2/tech-stack-products), by name in any case.'),
    location: Type.Optional(
      Type.Union([
        Type.Object(
          {
            address: text(1000),
            city: text(200),
            state: text(200),
            country: text(200),
            countryCode: text(2, 'ISO 3166-1 alpha-2, in any case.'),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    revenueRange: Type.Optional(
      Type.Union([
        Type.Object({ min: amount('Yearly revenue, at least.'), max: amount('Yearly revenue, at most.') }, { additionalProperties: false }),
        Type.Null(),
      ]),
    ),
    score: Type.Optional(Type.Union([Type.Number({ minimum: -1e9, maximum: 1e9 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const ContactRecordSchema = Type.Object(
  {
    linkedInHandle: Type.String({ maxLength: 1024, description: 'The key: `jane-doe` or `https://www.linkedin.com/in/jane-doe`, matched in any case.' }),
    fullName: Type.String({ minLength: 1, maxLength: 500 }),
    name: text(500, 'Default: `fullName`.'),
    avatarUrl: text(2048),
    title: text(500),
    role: text(200),
    seniority: text(200),
    linkedInFollowerCount: count('LinkedIn followers.'),
    skills: strings(500, 200, 'As given; kept once in any case.'),
    location: Type.Optional(
      Type.Union([Type.Object({ city: text(200), region: text(200), country: text(200) }, { additionalProperties: false }), Type.Null()]),
    ),
    companyDomain: text(2048, "The contact's company: the domain of a prospector company imported before."),
    lastOrgChange: text(40, 'When the contact last changed organization: ISO 8601 date-time with an offset, or a date (midnight UTC).'),
  },
  { additionalProperties: false },
);

export type CompanyRecord = Static<typeof CompanyRecordSchema>;
export type ContactRecord = Static<typeof ContactRecordSchema>;

/** A company read from its record; `technologies` as given, to be found in the catalog, and the NAICS code to be checked. */
export type ReadCompany = CompanyValues;

/** A contact read from its record; `companyDomain` is to be found among the companies. */
export type ReadContact = Omit<ContactValues, 'company_id'> & { companyDomain: string | null };

export type Read<T> = { ok: true; value: T } | { ok: false; faults: string[] };

function validatorOf<T extends TSchema>(schema: T) {
  const validate = compileBodyValidator(schema as object);
  return (value: unknown): string[] => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['a record must be a JSON object'];
    const invalid = findInvalidText(value);
    if (invalid) return [`field "${invalid.path}" ${invalid.problem}`];
    if (validate(value)) return [];
    // A nullable field is a union with null: the failure of the null branch, and the union's own, say nothing more.
    const errors = (validate.errors ?? []).filter(
      (error) => error.keyword !== 'anyOf' && !(error.keyword === 'type' && (error.params as { type?: unknown }).type === 'null'),
    );
    return describeValidation(errors.length ? errors : (validate.errors ?? []), 'field').split('; ');
  };
}

const checkCompany = validatorOf(CompanyRecordSchema);
const checkContact = validatorOf(ContactRecordSchema);

/** Trimmed text; blank is no value. */
function clean(value: string | null | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/** The items trimmed, blank ones left out, each kept once whatever its case (the first spelling wins). */
function distinct(values: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const value of values ?? []) {
    const item = clean(value);
    if (item === null || seen.has(item.toLowerCase())) continue;
    seen.add(item.toLowerCase());
    kept.push(item);
  }
  return kept;
}

const COMPANY_PAGE = /^(?:https?:\/\/)?(?:[a-z]{2,3}\.)?linkedin\.com\/company\/([^/?#\s]+)\/?(?:[?#].*)?$/i;

/** A LinkedIn company page as its handle (`acme` from `https://www.linkedin.com/company/acme/`), lowercased. */
function companyHandle(given: string): string | null {
  const page = COMPANY_PAGE.exec(given);
  let handle = page ? page[1]! : given;
  try {
    handle = decodeURIComponent(handle).normalize('NFC');
  } catch {
    return null;
  }
  return /^[^\s/?#]{1,200}$/u.test(handle) ? handle.toLowerCase() : null;
}

/** A NAICS code given as `541511` or `naics_541511`. */
function industryCode(given: number | string): number | null {
  if (typeof given === 'number') return given;
  const match = /^naics_([0-9]{2,6})$/.exec(given.trim());
  return match ? Number(match[1]) : null;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2}))?$/;

/** An ISO 8601 date-time with an offset, or a date (midnight UTC), as an ISO instant; null when it is neither. */
export function readInstant(given: string): string | null {
  const match = INSTANT.exec(given.trim());
  if (!match) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  const real = date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
  if (!real || Number(year) < 1 || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const instant = Date.parse(match[4] === undefined ? `${given.trim()}T00:00:00Z` : given.trim());
  return Number.isNaN(instant) ? null : new Date(instant).toISOString();
}

/** A company record: its columns, or every fault of it. */
export function readCompany(record: unknown): Read<ReadCompany> {
  const faults = checkCompany(record);
  if (faults.length) return { ok: false, faults };
  const given = record as CompanyRecord;
  const domain = registrableDomain(given.domain ?? given.primaryWebsite ?? null);
  if (domain === null) {
    faults.push(
      given.domain === undefined || given.domain === null
        ? given.primaryWebsite
          ? `primaryWebsite ${JSON.stringify(given.primaryWebsite)} names no registrable domain, and no domain is given`
          : 'domain is required (or a primaryWebsite to take it from)'
        : `domain ${JSON.stringify(given.domain)} is not a domain with a public suffix`,
    );
  }
  const name = clean(given.name);
  if (name === null) faults.push('name is blank');
  const linkedInHandles: string[] = [];
  for (const [index, page] of (given.linkedInHandles ?? []).entries()) {
    if (clean(page) === null) continue;
    const handle = companyHandle(page.trim());
    if (handle === null) faults.push(`linkedInHandles[${index}] ${JSON.stringify(page)} is not a LinkedIn company handle or page`);
    else if (!linkedInHandles.includes(handle)) linkedInHandles.push(handle);
  }
  const code = given.industry === undefined || given.industry === null ? null : industryCode(given.industry);
  if (given.industry !== undefined && given.industry !== null && code === null) {
    faults.push(`industry ${JSON.stringify(given.industry)} is not a NAICS code (541511 or naics_541511)`);
  }
  const countryCode = clean(given.location?.countryCode)?.toUpperCase() ?? null;
  if (countryCode !== null && !(/^[A-Z]{2}$/.test(countryCode) && countries.isValid(countryCode))) {
    faults.push(`location.countryCode ${JSON.stringify(given.location?.countryCode)} is not an ISO 3166-1 alpha-2 country code`);
  }
  const revenueMin = given.revenueRange?.min ?? null;
  const revenueMax = given.revenueRange?.max ?? null;
  if (revenueMin !== null && revenueMax !== null && revenueMin > revenueMax)
    faults.push(`revenueRange.min ${revenueMin} is more than revenueRange.max ${revenueMax}`);
  if (faults.length) return { ok: false, faults };
  return {
    ok: true,
    value: {
      primary_domain: domain!,
      name: name!,
      description: clean(given.description),
      primary_website: clean(given.primaryWebsite) ?? `https://${domain}`,
      logo_url: clean(given.logoUrl),
      sub_industry: clean(given.subIndustry),
      industry_code: code,
      employees: given.employees ?? null,
      raised: given.raised ?? null,
      linkedin_handles: linkedInHandles,
      technologies: distinct(given.technologies),
      address: clean(given.location?.address),
      city: clean(given.location?.city),
      state: clean(given.location?.state),
      country: clean(given.location?.country),
      country_code: countryCode,
      revenue_min: revenueMin,
      revenue_max: revenueMax,
      score: given.score ?? null,
    },
  };
}

/** A contact record: its columns, or every fault of it. */
export function readContact(record: unknown): Read<ReadContact> {
  const faults = checkContact(record);
  if (faults.length) return { ok: false, faults };
  const given = record as ContactRecord;
  const handle = normalizeHandle('linkedin', given.linkedInHandle);
  if (!handle.ok) faults.push(`linkedInHandle: ${handle.reason}`);
  const fullName = clean(given.fullName);
  if (fullName === null) faults.push('fullName is blank');
  const companyDomain = clean(given.companyDomain) === null ? null : registrableDomain(given.companyDomain);
  if (clean(given.companyDomain) !== null && companyDomain === null)
    faults.push(`companyDomain ${JSON.stringify(given.companyDomain)} is not a domain with a public suffix`);
  const lastOrgChange = clean(given.lastOrgChange) === null ? null : readInstant(given.lastOrgChange!);
  if (clean(given.lastOrgChange) !== null && lastOrgChange === null) {
    faults.push(`lastOrgChange ${JSON.stringify(given.lastOrgChange)} is not an ISO 8601 date-time with an offset, or a date`);
  }
  if (faults.length || !handle.ok) return { ok: false, faults };
  return {
    ok: true,
    value: {
      linkedin_handle: handle.identity.value,
      name: clean(given.name) ?? fullName!,
      full_name: fullName!,
      avatar_url: clean(given.avatarUrl),
      title: clean(given.title),
      role: clean(given.role),
      seniority: clean(given.seniority),
      linkedin_follower_count: given.linkedInFollowerCount ?? null,
      skills: distinct(given.skills),
      city: clean(given.location?.city),
      region: clean(given.location?.region),
      country: clean(given.location?.country),
      last_org_change_at: lastOrgChange,
      companyDomain,
    },
  };
}

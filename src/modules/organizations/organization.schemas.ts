import Type from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Direction, Limit, Nullable, PageMeta, Place, v2Item, v2Page } from '../../http/schemas.ts';
import { sortDescription, type SortOptions } from '../../http/sort.ts';
import { CustomFieldValues } from '../custom-fields/index.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { ORGANIZATION_FILTERS } from './organization.filters.ts';
import { LeadScoreKeyFactors, LeadScoreValues } from '../lead-scores/index.ts';
import { component } from '../../http/components.ts';

/** Opt-in columns of an organization (docs/behaviour.md, cols), in the order they appear in the object. */
export const ORGANIZATION_COLS = [
  'about',
  'contactsCount',
  'employees',
  'linkedInUrl',
  'profiles',
  'revenueRangeMin',
  'revenueRangeMax',
  'subIndustry',
  'location',
  'leadScores',
  'leadScoreKeyFactors',
  'researchResults',
  'recentJobOpenings',
  'recentNews',
  'surgingTopics',
  'topContacts',
  'tags',
  'url',
] as const;
export type OrganizationCol = (typeof ORGANIZATION_COLS)[number];

export const LIST_COLS: ColsOptions = { optIn: ORGANIZATION_COLS, customFields: true, recordCount: true };
export const GET_COLS: ColsOptions = { optIn: ORGANIZATION_COLS, customFields: true };
export const SORTS: SortOptions = { fixed: ['id', 'member_count'], default: 'id', customFields: true, leadScores: true };

/** How many job openings, news items and contacts the `recent*` and `topContacts` columns show. */
export const RECENT_LIMIT = 5;

const Profile = Type.Object({
  name: Type.String({ description: 'What the profile is known by there: the domain of the website, the LinkedIn company handle.' }),
  type: Type.String({ description: '`website` or `linkedin`' }),
  url: Type.String(),
});

const ResearchResult = Type.Object({
  promptId: Type.String({ description: 'The research prompt (/api/v2/admin/research-prompts).' }),
  answer: Type.String({ description: "Imported, or written by the configured model over the organization's own data (docs/insights.md)." }),
  isPrimaryPrompt: Type.Boolean(),
  promptName: Type.String(),
});

const JobOpening = Type.Object({
  jobTitle: Type.String(),
  jobDescription: Nullable(Type.String()),
  firstSeenAt: Type.String({ format: 'date-time' }),
  isClosed: Type.Boolean(),
  location: Nullable(Type.String()),
  url: Nullable(Type.String()),
});

const NewsItem = Type.Object({
  title: Type.String(),
  publishedAt: Type.String({ format: 'date-time' }),
  category: Nullable(Type.String()),
  articleSentence: Nullable(Type.String()),
  url: Nullable(Type.String()),
});

const TopContact = Type.Object({ id: Type.String({ description: 'c_N' }), name: Type.String() }, { description: 'A contact, without opt-in columns' });

/**
 * Property order is the wire order: the interface's, with `profiles` after `linkedInUrl` and `url` last,
 * the one field after `tags` (docs/behaviour.md, Envelopes).
 */
export const Organization = component(
  'Organization',
  Type.Object({
    id: Type.String({ description: 'o_N' }),
    name: Type.String(),
    primaryDomain: Type.String({ description: 'The registrable domain the organization is keyed by, lowercase.' }),
    about: Type.Optional(Nullable(Type.String())),
    contactsCount: Type.Optional(Type.Integer({ description: 'Contacts linked to the organization.' })),
    employees: Type.Optional(Nullable(Type.Integer())),
    linkedInUrl: Type.Optional(Nullable(Type.String())),
    profiles: Type.Optional(Type.Array(Profile, { description: 'The website (from the primary domain), then LinkedIn (from `linkedInUrl`).' })),
    revenueRangeMin: Type.Optional(Nullable(Type.Number())),
    revenueRangeMax: Type.Optional(Nullable(Type.Number())),
    subIndustry: Type.Optional(Nullable(Type.String())),
    location: Type.Optional(Nullable(Place)),
    customFields: Type.Optional(CustomFieldValues),
    leadScores: Type.Optional(LeadScoreValues),
    leadScoreKeyFactors: Type.Optional(LeadScoreKeyFactors),
    researchResults: Type.Optional(
      Type.Array(ResearchResult, { description: 'Answers to the live research prompts, the primary one first; [] without a model and without imports.' }),
    ),
    recentJobOpenings: Type.Optional(Type.Array(JobOpening, { description: `The latest ${RECENT_LIMIT} by \`firstSeenAt\`, newest first.` })),
    recentNews: Type.Optional(Type.Array(NewsItem, { description: `The latest ${RECENT_LIMIT} by \`publishedAt\`, newest first.` })),
    surgingTopics: Type.Optional(Type.Array(Type.String())),
    topContacts: Type.Optional(
      Type.Array(TopContact, {
        description: `Up to ${RECENT_LIMIT} of its contacts with the most activities (ties by ID); anonymized contacts are left out.`,
      }),
    ),
    tags: Type.Optional(Type.Array(Type.String(), { description: 'Tag IDs (l_N); GET /api/v2/tags resolves them.' })),
    url: Type.Optional(Type.String({ description: "The organization's address in the web console." })),
  }),
);

export const OrganizationsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    sort: Type.Optional(
      Type.String({
        description: `${sortDescription(SORTS)} \`member_count\` is \`contactsCount\`. Records without the sorted lead score or custom field come last in both directions.`,
      }),
    ),
    direction: Direction,
    cols: Type.Optional(Type.String({ description: colsDescription(LIST_COLS) })),
    name: Type.Optional(Type.String({ description: 'Exact (case-sensitive) name.' })),
    primaryDomain: Type.Optional(Type.String({ description: 'Exact primary domain, compared lowercased (`Acme.com` finds `acme.com`).' })),
    lightFilter: lightFilterParam(ORGANIZATION_FILTERS, 'organization', { customFields: true, leadScores: true }),
  },
  { additionalProperties: false },
);

export const OrganizationQuery = Type.Object({ cols: Type.Optional(Type.String({ description: colsDescription(GET_COLS) })) }, { additionalProperties: false });

export const OrganizationParams = Type.Object({ id: Type.String({ description: 'o_N' }) });

export const OrganizationResponse = v2Item(Organization);
export const OrganizationsResponse = v2Page(Organization, PageMeta);

// The core organization upserts (docs/ingestion.md, Organizations; docs/behaviour.md, Routes and Ingestion).
const Id = Type.Union([Type.Integer(), Type.String({ minLength: 1 })]);
const CustomFields = Type.Optional(
  Nullable(
    Type.Array(
      Type.Object({
        customFieldId: Id,
        customFieldValue: Type.Optional(Nullable(Type.Object({ type: Type.Optional(Type.String()), value: Type.Optional(Type.Unknown()) }))),
      }),
      { description: 'Single values, or arrays for multi-select fields; a missing value clears the field' },
    ),
  ),
);
const TagIds = Type.Optional(Nullable(Type.Array(Id, { description: 'Tag IDs (l_N) that allow organizations (company)' })));

export const CoreUpsertBody = Type.Object({
  domain: Type.Optional(Nullable(Type.String())),
  destinationSourceId: Type.Optional(Nullable(Id)),
  groupAttributesId: Type.Optional(Nullable(Id)),
  prospectorCompanyId: Type.Optional(Nullable(Id)),
  customFields: CustomFields,
  tagIdsToAdd: TagIds,
  tagIdsToRemove: TagIds,
});

export const SourceUpsertBody = Type.Object({
  sourceId: Type.Optional(Id),
  domain: Type.String({ minLength: 1 }),
  customFields: CustomFields,
  tagIdsToAdd: TagIds,
  tagIdsToRemove: TagIds,
});

export const Upserted = Type.Object({
  status: Type.Literal('success'),
  organizationId: Type.String({ description: 'o_N' }),
  created: Type.Boolean(),
  warnings: Type.Array(Type.String(), { description: 'Unknown body fields that were ignored' }),
});

import Type, { type Static } from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Direction, Limit, Nullable, PageMeta, Place, v2Item, v2Page } from '../../http/schemas.ts';
import { sortDescription, type SortOptions } from '../../http/sort.ts';
import { FullActivity } from '../activities/index.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { CONTACT_FILTERS } from './contact.filters.ts';
import { CustomFieldValues } from '../custom-fields/index.ts';
import { LeadScoreKeyFactors, LeadScoreValues } from '../lead-scores/index.ts';
import { component } from '../../http/components.ts';

/** Every contact column but `id` and `name` is opt-in (docs/behaviour.md, cols). */
export const CONTACT_COLUMNS = [
  'activateMessage',
  'avatarUrl',
  'fullName',
  'location',
  'primaryEmail',
  'phoneNumbers',
  'title',
  'companyName',
  'companyWebsite',
  'connectedCustomObjects',
  'profiles',
  'jobHistory',
  'leadScores',
  'leadScoreKeyFactors',
  'recentActivities',
  'recentWebPages',
  'recentWebVisitsNumber',
  'segments',
  'sparkSummary',
  'recentSparkSummaries',
  'tags',
  'url',
  'activityCount7d',
  'activityCount28d',
  'activityCount8w',
  'activityCount12w',
  'activityCount6m',
  'activityCount1y',
  'activityCountAll',
] as const;

export type ContactColumn = (typeof CONTACT_COLUMNS)[number];

export const CONTACT_LIST_COLS: ColsOptions = { optIn: CONTACT_COLUMNS, customFields: true, recordCount: true };
export const CONTACT_GET_COLS: ColsOptions = { optIn: CONTACT_COLUMNS, customFields: true };
export const CONTACT_SORT: SortOptions = { fixed: ['id', 'latest_activity', 'name'], default: 'id', customFields: true, leadScores: true };

const opt = Type.Optional;
const count = (description: string) => opt(Type.Integer({ description }));

/**
 * A v2 contact, fields in the interface's order and `url` last (docs/behaviour.md, Envelopes).
 * `recentActivities` holds activities as `GET /api/v2/activities/{id}` shows them with every column.
 */
export const Contact = component(
  'Contact',
  Type.Object({
    id: Type.String({ description: 'c_N' }),
    name: Type.String({ description: 'Never null: the full name, else the username, else the email local part, else "Unknown".' }),
    fullName: opt(Nullable(Type.String())),
    avatarUrl: opt(Nullable(Type.String())),
    location: opt(Nullable(Place)),
    primaryEmail: opt(Nullable(Type.String())),
    phoneNumbers: opt(Type.Array(Type.Object({ type: Type.String(), value: Type.String({ description: 'E.164' }) }))),
    title: opt(Nullable(Type.String())),
    companyName: opt(Nullable(Type.String())),
    companyWebsite: opt(Nullable(Type.String())),
    connectedCustomObjects: opt(Type.Array(Type.Object({ id: Type.String({ description: 'co_N' }), name: Type.String(), objectType: Type.String() }))),
    customFields: opt(CustomFieldValues),
    profiles: opt(
      Type.Array(Type.Object({ type: Type.String(), value: Type.String() }), { description: 'Identities: email, github, twitter, linkedin, discord.' }),
    ),
    jobHistory: opt(
      Type.Array(
        Type.Object({
          company: Nullable(Type.String()),
          title: Nullable(Type.String()),
          startDate: Nullable(Type.String()),
          endDate: Nullable(Type.String()),
        }),
      ),
    ),
    leadScores: opt(LeadScoreValues),
    leadScoreKeyFactors: opt(LeadScoreKeyFactors),
    segments: opt(Type.Array(Type.Object({ id: Type.String({ description: 's_N' }), name: Type.String() }))),
    recentWebPages: opt(
      Type.Array(Type.Object({ url: Type.String(), numVisits: Type.Integer() }), {
        description: 'Pages visited in the last 30 days, most visited first (at most 10).',
      }),
    ),
    recentWebVisitsNumber: count('Website visits in the last 30 days.'),
    recentActivities: opt(Type.Array(FullActivity, { description: 'The 5 latest activities, newest first.' })),
    activityCount7d: count('Activities in the last 7 days.'),
    activityCount28d: count('Activities in the last 28 days.'),
    activityCount8w: count('Activities in the last 56 days.'),
    activityCount12w: count('Activities in the last 84 days.'),
    activityCount6m: count('Activities in the last 182 days.'),
    activityCount1y: count('Activities in the last 365 days.'),
    activityCountAll: count('Every activity of the contact.'),
    activateMessage: opt(Nullable(Type.Object({ title: Type.String(), message: Type.String() }))),
    sparkSummary: opt(Nullable(Type.String())),
    recentSparkSummaries: opt(Type.Array(Type.String())),
    tags: opt(Type.Array(Type.String({ description: 'l_N' }))),
    url: opt(Type.String({ description: "The contact's address in the web console." })),
  }),
);

export type ContactView = Static<typeof Contact>;

export const ContactsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    sort: Type.Optional(Type.String({ description: sortDescription(CONTACT_SORT) })),
    direction: Direction,
    cols: Type.Optional(Type.String({ description: colsDescription(CONTACT_LIST_COLS) })),
    organizationId: Type.Optional(Type.String({ description: 'Only contacts of this organization (o_N).' })),
    segmentId: Type.Optional(Type.String({ description: 'Only members of this contact segment (s_N).' })),
    lightFilter: lightFilterParam(CONTACT_FILTERS, 'contact', { customFields: true, leadScores: true }),
  },
  { additionalProperties: false },
);

export const ContactQuery = Type.Object(
  { cols: Type.Optional(Type.String({ description: colsDescription(CONTACT_GET_COLS) })) },
  { additionalProperties: false },
);

export const ContactParams = Type.Object({ id: Type.String({ description: 'c_N' }) });

export const ContactResponse = v2Item(Contact);
export const ContactsResponse = v2Page(Contact, PageMeta);

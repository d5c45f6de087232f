import Type, { type Static } from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { ACTIVITY_FILTERS } from '../activities/index.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';

export const MAX_SPAN_DAYS = 366;
export const DEFAULT_SPAN_DAYS = 28;
export const HIGHLIGHT_LIMIT = { default: 5, max: 20 };

const Day = (description: string) => Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description });

const period = {
  startDate: Type.Optional(Day(`First day of the period (UTC, inclusive); default \`endDate\` − ${DEFAULT_SPAN_DAYS - 1} days.`)),
  endDate: Type.Optional(Day(`Last day of the period (UTC, inclusive); default today. At most ${MAX_SPAN_DAYS} days from \`startDate\`.`)),
};
const interval = Type.Enum(['day', 'week'], {
  default: 'day',
  description: 'Bucket size: a UTC day, or a week from Monday (the first and last may be partial).',
});

export const ActivityStatsQuery = Type.Object(
  {
    ...period,
    interval,
    groupBy: Type.Enum(['source', 'type', 'category'], {
      default: 'source',
      description: 'What the groups are: providers, activity types or their categories.',
    }),
    lightFilter: lightFilterParam(ACTIVITY_FILTERS, 'activity'),
  },
  { additionalProperties: false },
);
export type ActivityStatsQuery = Static<typeof ActivityStatsQuery>;

export const ContactStatsQuery = Type.Object({ ...period, interval }, { additionalProperties: false });
export type ContactStatsQuery = Static<typeof ContactStatsQuery>;

export const HighlightsQuery = Type.Object(
  {
    ...period,
    limit: Type.Integer({
      minimum: 1,
      maximum: HIGHLIGHT_LIMIT.max,
      default: HIGHLIGHT_LIMIT.default,
      description: `Items of each list, 1..${HIGHLIGHT_LIMIT.max}.`,
    }),
  },
  { additionalProperties: false },
);
export type HighlightsQuery = Static<typeof HighlightsQuery>;

const LightFilterText = (description: string) => Type.String({ description: `A lightFilter (JSON text, to be URL-encoded): ${description}` });

const Bucket = Type.Object({
  start: Type.String({ description: 'First day of the bucket within the period (YYYY-MM-DD).' }),
  end: Type.String({ description: 'Last day of the bucket within the period (YYYY-MM-DD).' }),
});

export const ActivityStats = component(
  'ActivityStats',
  Type.Object({
    startDate: Type.String(),
    endDate: Type.String(),
    interval: Type.String(),
    groupBy: Type.String(),
    total: Type.Integer({ description: 'Activities in the period.' }),
    previousTotal: Type.Integer({ description: 'Activities in the previous period (as many days, just before `startDate`).' }),
    groups: Type.Array(
      Type.Object({
        key: Type.String({ description: 'sig_N (source), the activity type, or the category value.' }),
        name: Type.String(),
        count: Type.Integer(),
        lightFilter: LightFilterText("the activities of this group in GET /api/v2/activities (with the bucket's startDate and endDate)."),
      }),
      { description: 'Every group with activity in the period, most activities first.' },
    ),
    buckets: Type.Array(
      Type.Object({
        ...Bucket.properties,
        total: Type.Integer(),
        counts: Type.Record(Type.String(), Type.Integer(), { description: 'Activities by group key; groups with none are left out.' }),
      }),
    ),
    previous: Type.Object({
      startDate: Type.String(),
      endDate: Type.String(),
      buckets: Type.Array(Type.Object({ ...Bucket.properties, total: Type.Integer() })),
    }),
  }),
);

const Change = Nullable(Type.Number({ description: '(count − previous) / previous; null when previous is 0.' }));

const ContactCount = Type.Object({
  count: Type.Integer(),
  previous: Type.Integer(),
  change: Change,
  lightFilter: Nullable(LightFilterText('exactly these contacts in GET /api/v2/contacts; null when the contact filter fields cannot say it.')),
});

export const ContactStats = component(
  'ContactStats',
  Type.Object({
    startDate: Type.String(),
    endDate: Type.String(),
    interval: Type.String(),
    active: ContactCount,
    new: ContactCount,
    buckets: Type.Array(Type.Object({ ...Bucket.properties, active: Type.Integer(), new: Type.Integer() })),
  }),
);

export const Highlights = component(
  'StatsHighlights',
  Type.Object({
    startDate: Type.String(),
    endDate: Type.String(),
    topContributors: Type.Array(
      Type.Object({
        contact: Type.Object({ id: Type.String({ description: 'c_N' }), name: Type.String(), avatarUrl: Nullable(Type.String()) }),
        count: Type.Integer(),
        previous: Type.Integer(),
      }),
    ),
    risingOrganizations: Type.Array(
      Type.Object({
        organization: Type.Object({ id: Type.String({ description: 'o_N' }), name: Type.String() }),
        count: Type.Integer(),
        previous: Type.Integer(),
        change: Change,
      }),
    ),
    surgingTopics: Type.Array(
      Type.Object({
        topic: Type.Object({ id: Type.String({ description: 'tp_N' }), name: Type.String() }),
        count: Type.Integer(),
        previous: Type.Integer(),
        change: Change,
      }),
    ),
    leadScores: Type.Array(
      Type.Object({
        score: Type.Object({ id: Type.String({ description: 'ls_N' }), name: Type.String() }),
        buckets: Type.Array(Type.Object({ from: Type.Number(), to: Type.Number(), count: Type.Integer() })),
      }),
    ),
  }),
);

export const ActivityStatsResponse = v2Item(ActivityStats);
export const ContactStatsResponse = v2Item(ContactStats);
export const HighlightsResponse = v2Item(Highlights);

export type ActivityStatsData = Static<typeof ActivityStats>;
export type ContactStatsData = Static<typeof ContactStats>;
export type HighlightsData = Static<typeof Highlights>;

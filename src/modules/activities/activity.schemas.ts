import Type, { type Static, type TSchema } from 'typebox';
import { SENTIMENTS } from './activity.filters.ts';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Direction, Limit, Nullable, PageMeta, v2Definitions, v2Item, v2Page } from '../../http/schemas.ts';
import { sortDescription, type SortOptions } from '../../http/sort.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { ACTIVITY_FILTERS } from './activity.filters.ts';
import { component } from '../../http/components.ts';

/** The opt-in columns of an activity (docs/behaviour.md, cols), in the order they are returned: `url` last. */
export const ACTIVITY_COLUMNS = [
  'contactId',
  'content',
  'isUserInitiated',
  'participantCount',
  'providerId',
  'providerName',
  'replyCount',
  'sentiment',
  'subSourceNames',
  'url',
] as const;
export type ActivityColumn = (typeof ACTIVITY_COLUMNS)[number];

export const LIST_COLS: ColsOptions = { optIn: ACTIVITY_COLUMNS, recordCount: true };
export const GET_COLS: ColsOptions = { optIn: ACTIVITY_COLUMNS };
export const ACTIVITY_SORT: SortOptions = { fixed: ['id', 'activityTime'], default: 'activityTime' };

const always = {
  id: Type.String({ description: 'a_N' }),
  type: Type.String({ description: 'The pushed `activityType`: an ID of GET /api/v2/activity-types' }),
  activityTime: Type.String({ format: 'date-time' }),
};

const optIn = {
  contactId: Type.String({ description: 'c_N: the contact who did it' }),
  content: Nullable(Type.String({ description: 'The pushed content as given (text or markdown); null when none, or once erased' })),
  isUserInitiated: Type.Boolean(),
  participantCount: Type.Integer({ description: 'Distinct contacts among the activity and every activity threaded under it, at all depths' }),
  providerId: Type.String({ description: 'sig_N: the source it was pushed to' }),
  providerName: Type.String({ description: 'The name of that source' }),
  replyCount: Type.Integer({ description: 'Activities threaded under it, at all depths' }),
  sentiment: Nullable(Type.Enum([...SENTIMENTS], { description: 'Read from the content at ingest; null when there was no content' })),
  subSourceNames: Type.Array(Type.String(), { description: 'The channel or repository it came from: one name, or empty' }),
  url: Type.String({ description: "The activity's address in the web console" }),
} satisfies Record<ActivityColumn, TSchema>;

type Optionals<T extends Record<string, TSchema>> = { [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>> };

function optional<T extends Record<string, TSchema>>(properties: T): Optionals<T> {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)])) as Optionals<T>;
}

/** An activity with every column present: what a contact's `recentActivities` holds. */
export const FullActivity = component('FullActivity', Type.Object({ ...always, ...optIn }));
export type FullActivity = Static<typeof FullActivity>;

/** An activity of a list or get: the opt-in columns appear only when `cols` names them. */
export const Activity = component('Activity', Type.Object({ ...always, ...optional(optIn) }));
export type Activity = Static<typeof Activity>;

export const ActivitiesQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    sort: Type.Optional(Type.String({ description: sortDescription(ACTIVITY_SORT) })),
    direction: Direction,
    cols: Type.Optional(Type.String({ description: colsDescription(LIST_COLS) })),
    contactId: Type.Optional(Type.String({ description: "c_N: that contact's activities. The ID of a contact merged into another gives the survivor's." })),
    organizationId: Type.Optional(Type.String({ description: "o_N: the activities of the organization's contacts." })),
    startDate: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive lower bound on `activityTime`.' })),
    endDate: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive upper bound on `activityTime`.' })),
    lightFilter: lightFilterParam(ACTIVITY_FILTERS, 'activity'),
  },
  { additionalProperties: false },
);
export type ActivitiesQuery = Static<typeof ActivitiesQuery>;

export const ActivityParams = Type.Object({ id: Type.String({ description: 'a_N' }) });
export const ActivityQuery = Type.Object({ cols: Type.Optional(Type.String({ description: colsDescription(GET_COLS) })) }, { additionalProperties: false });

export const ActivityResponse = v2Item(Activity);
export const ActivitiesResponse = v2Page(Activity, PageMeta);

export const Sentiment = component(
  'ActivitySentiment',
  Type.Object({
    id: Type.Enum([...SENTIMENTS], { description: 'The value activities carry as `sentiment` (and filter by)' }),
    name: Type.String({ description: 'For display' }),
  }),
);
export const SentimentsResponse = v2Definitions(Sentiment);

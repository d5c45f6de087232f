import Type from 'typebox';
import { colsDescription, type ColsOptions } from '../../http/cols.ts';
import { Cursor, Limit, Nullable, PageMeta, v2Item, v2Page } from '../../http/schemas.ts';
import { lightFilterParam } from '../../filters/light-filter.param.ts';
import { component } from '../../http/components.ts';
import { JOB_OPENING_FILTERS, NEWS_FILTERS } from './company-update.filters.ts';

/** The most job openings or news items one import request writes. */
export const MAX_ITEMS_PER_IMPORT = 10_000;

/** The one job-openings opt-in column is `url`; news has none; both take `recordCount` (docs/behaviour.md, cols). */
export const JOB_OPENING_LIST_COLS: ColsOptions = { optIn: ['url'], recordCount: true };
export const NEWS_LIST_COLS: ColsOptions = { optIn: [], recordCount: true };

export const JobOpeningItem = component(
  'JobOpeningItem',
  Type.Object({
    id: Type.String({ description: 'job_N' }),
    jobTitle: Type.String(),
    location: Nullable(Type.String()),
    jobDescription: Nullable(Type.String()),
    firstSeenAt: Type.String({ format: 'date-time' }),
    isClosed: Type.Boolean(),
    url: Type.Optional(Nullable(Type.String({ description: 'The posting (opt-in: `cols=url`).' }))),
  }),
);

export const NewsListItem = component(
  'NewsListItem',
  Type.Object({
    id: Type.String({ description: 'news_N' }),
    title: Type.String(),
    category: Nullable(Type.String()),
    articleSentence: Nullable(Type.String()),
    publishedAt: Type.String({ format: 'date-time' }),
  }),
);

const parentParams = {
  organizationId: Type.Optional(Type.String({ description: 'o_N: the organization’s items. Exactly one of organizationId and objectId.' })),
  objectId: Type.Optional(Type.String({ description: 'co_N: the custom object’s items. Exactly one of organizationId and objectId.' })),
};
// No default: the lists run newest first unless told otherwise.
const direction = Type.Optional(Type.Enum(['asc', 'desc'], { description: 'Default `desc` (newest first).' }));

export const JobOpeningsQuery = Type.Object(
  {
    ...parentParams,
    limit: Limit,
    cursor: Type.Optional(Cursor),
    cols: Type.Optional(Type.String({ description: colsDescription(JOB_OPENING_LIST_COLS) })),
    sort: Type.Enum(['firstSeenAt'], { default: 'firstSeenAt', description: 'The only sort: when the opening was first seen (ties by ID).' }),
    direction,
    lightFilter: lightFilterParam(JOB_OPENING_FILTERS, 'job_opening'),
  },
  { additionalProperties: false },
);

export const NewsQuery = Type.Object(
  {
    ...parentParams,
    limit: Limit,
    cursor: Type.Optional(Cursor),
    cols: Type.Optional(Type.String({ description: colsDescription(NEWS_LIST_COLS) })),
    sort: Type.Enum(['publishedAt'], { default: 'publishedAt', description: 'The only sort: when the item was published (ties by ID).' }),
    direction,
    lightFilter: lightFilterParam(NEWS_FILTERS, 'news'),
  },
  { additionalProperties: false },
);

export const JobOpeningPage = v2Page(JobOpeningItem, PageMeta);
export const NewsPage = v2Page(NewsListItem, PageMeta);

const itemParent = {
  organizationId: Type.Optional(Type.String({ description: 'o_N. Exactly one of organizationId and objectId.' })),
  objectId: Type.Optional(Type.String({ description: 'co_N. Exactly one of organizationId and objectId.' })),
  key: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'What identifies the item within its parent: another item with the same key updates it. Default: the url, else the title (and location).',
    }),
  ),
};
const text = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

export const JobOpeningImportBody = Type.Object(
  {
    jobOpenings: Type.Array(
      Type.Object(
        {
          ...itemParent,
          jobTitle: Type.String({ maxLength: 500 }),
          jobDescription: text(100_000),
          location: text(500),
          url: text(2_000),
          firstSeenAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now, or when it was first imported.' })),
          isClosed: Type.Optional(Type.Boolean({ default: false })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_ITEMS_PER_IMPORT },
    ),
  },
  { additionalProperties: false },
);

export const NewsImportBody = Type.Object(
  {
    news: Type.Array(
      Type.Object(
        {
          ...itemParent,
          title: Type.String({ maxLength: 1_000 }),
          category: text(200),
          articleSentence: text(10_000),
          url: text(2_000),
          publishedAt: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_ITEMS_PER_IMPORT },
    ),
  },
  { additionalProperties: false },
);

export const ImportAnswer = v2Item(Type.Object({ added: Type.Integer(), changed: Type.Integer(), unchanged: Type.Integer() }));

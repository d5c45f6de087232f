import { booleanField, col, scalarField, timeField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';

/** The job openings list's filterable fields; the list query names job openings `j`. */
export const JOB_OPENING_FILTERS: ListFields = {
  listName: 'job openings',
  table: 'job_openings',
  alias: 'j',
  fields: [
    scalarField('jobTitle', () => col('j', 'job_title')),
    scalarField('location', () => col('j', 'location')),
    scalarField('jobDescription', () => col('j', 'job_description')),
    booleanField('isClosed', col('j', 'is_closed')),
    timeField('firstSeenAt', col('j', 'first_seen_at')),
  ],
};

/** The news list's filterable fields; the list query names news items `n`. */
export const NEWS_FILTERS: ListFields = {
  listName: 'news items',
  table: 'news_items',
  alias: 'n',
  fields: [
    scalarField('title', () => col('n', 'title')),
    scalarField('category', () => col('n', 'category')),
    scalarField('articleSentence', () => col('n', 'article_sentence')),
    timeField('publishedAt', col('n', 'published_at')),
  ],
};

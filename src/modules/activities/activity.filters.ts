import { sql, type SqlBool } from 'kysely';
import { booleanField, col, oneOf, prefixedId, scalarField, SET_OPS, setField, TEXT_OPS, timeField } from '../../filters/field-kinds.ts';
import type { ListFields } from '../../filters/field-registry.ts';
import { tagsField } from '../tags/index.ts';

export const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;

/** The activity list's own filterable fields; the list query names activities `a`. */
export const ACTIVITY_FILTERS: ListFields = {
  listName: 'activities',
  table: 'activities',
  alias: 'a',
  fields: [
    scalarField('type', () => col('a', 'activity_type')),
    scalarField('contactId', () => col('a', 'contact_id'), { type: 'bigint', item: prefixedId('contact', 'a contact') }),
    scalarField('providerId', () => col('a', 'source_id'), { type: 'bigint', item: prefixedId('provider', 'a provider') }),
    setField(
      'subSourceNames',
      (ctx, match) => sql<SqlBool>`exists (select 1 from sub_sources f_ss where f_ss.community_id = ${ctx.communityId}
      and f_ss.id = a.sub_source_id and ${match(sql.ref('f_ss.name'))})`,
      { type: 'text', ops: { ...TEXT_OPS, ...SET_OPS } },
    ),
    scalarField('sentiment', () => col('a', 'sentiment'), {
      item: oneOf(SENTIMENTS, 'a sentiment'),
      ops: { stringFilter: ['eq'], stringListFilter: ['any', 'none'] },
    }),
    timeField('activityTime', col('a', 'activity_time')),
    booleanField('isUserInitiated', col('a', 'is_user_initiated')),
    scalarField('content', () => col('a', 'content'), {
      ops: { stringFilter: TEXT_OPS.stringFilter },
      trigram: { table: 'activities', alias: 'a', column: 'content' },
    }),
    scalarField('title', () => col('a', 'title'), { ops: { stringFilter: TEXT_OPS.stringFilter } }),
    scalarField('url', () => col('a', 'url'), { ops: { stringFilter: TEXT_OPS.stringFilter } }),
    tagsField('a', 'activity'),
  ],
};

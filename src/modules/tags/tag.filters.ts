import { sql, type SqlBool } from 'kysely';
import { col, prefixedId, setField, type FilterField } from '../../filters/field-kinds.ts';

/** `tags` of a list whose records take tags: the base table's alias and the tag_assignments entity type. */
export function tagsField(alias: string, entityType: 'contact' | 'organization' | 'activity'): FilterField {
  return setField(
    'tags',
    (ctx, match) => sql<SqlBool>`exists (select 1 from tag_assignments f_ta where f_ta.community_id = ${ctx.communityId}
      and f_ta.entity_type = ${entityType}::text and f_ta.entity_id = ${col(alias, 'id')} and ${match(sql.ref('f_ta.tag_id'))})`,
    { type: 'bigint', item: prefixedId('tag', 'a tag') },
  );
}

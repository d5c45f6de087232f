import { sql, type SqlBool } from 'kysely';
import { col, prefixedId, setField, type FilterField } from '../../filters/field-kinds.ts';

/** `segments` of a list whose records join segments: the base table's alias and the segments' entity type. */
export function segmentsField(alias: string, entityType: 'contact' | 'organization' | 'object'): FilterField {
  // The segment's entity type is checked: a membership row's entity_id alone does not say what it is.
  return setField(
    'segments',
    (ctx, match) => sql<SqlBool>`exists (select 1 from segment_memberships f_sm
      join segments f_s on f_s.community_id = f_sm.community_id and f_s.id = f_sm.segment_id
      where f_sm.community_id = ${ctx.communityId} and f_sm.entity_id = ${col(alias, 'id')}
      and f_s.entity_type = ${entityType}::text and ${match(sql.ref('f_sm.segment_id'))})`,
    { type: 'bigint', item: prefixedId('segment', 'a segment') },
  );
}

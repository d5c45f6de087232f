import { sql, type SqlBool } from 'kysely';
import { parseKey } from '../../core/ids.ts';
import { col, NUMBER_OPS, numberCompare, singleKindField, type FilterField } from '../../filters/field-kinds.ts';
import type { FieldFamily } from '../../filters/field-registry.ts';
import type { LeadScoreEntity } from './lead-score.repository.ts';

export interface LeadScoreDefinitions {
  /** IDs of the community's lead score definitions for the list's records. */
  leadScores: ReadonlySet<number>;
}

/**
 * `ls_<id>` and `ls_<id>.percentile`: the lead scores of a list's records (lead_scores.entity_type), whose
 * base table has that alias.
 */
export function leadScoreFamily(entityType: LeadScoreEntity, alias: string): FieldFamily<LeadScoreDefinitions> {
  return {
    resolve(name, { leadScores }) {
      const score = /^ls_([0-9]{1,16})(\.percentile)?$/.exec(name);
      if (!score) return null;
      const id = parseKey(score[1]!);
      return id !== null && leadScores?.has(id) ? leadScoreField(entityType, alias, id, score[2] ? 'percentile' : 'score') : null;
    },
    all({ leadScores }) {
      const ids = [...(leadScores ?? [])].sort((a, b) => a - b);
      return ids.flatMap((id) => (['score', 'percentile'] as const).map((column) => leadScoreField(entityType, alias, id, column)));
    },
  };
}

function leadScoreField(entityType: LeadScoreEntity, alias: string, id: number, column: 'score' | 'percentile'): FilterField {
  // A record without a score of this definition matches no comparison.
  return singleKindField(
    column === 'score' ? `ls_${id}` : `ls_${id}.percentile`,
    'numberFilter',
    NUMBER_OPS,
    (leaf, ctx) => sql<SqlBool>`exists (select 1 from lead_scores f_ls where f_ls.community_id = ${ctx.communityId} and f_ls.score_id = ${id}::bigint
            and f_ls.entity_type = ${entityType}::text and f_ls.entity_id = ${col(alias, 'id')}
            and ${numberCompare(sql.ref(`f_ls.${column}`), leaf.op, leaf.value)})`,
  );
}

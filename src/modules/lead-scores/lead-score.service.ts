import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';
import * as scores from './lead-score.repository.ts';
import type { LeadScoreDefinitionRow } from './lead-score.repository.ts';

function present(row: LeadScoreDefinitionRow) {
  return {
    id: formatId('lead_score', row.id),
    name: row.name,
    enabled: row.enabled,
    entityType: row.entityType,
    isPrimaryScore: row.isPrimaryScore,
    outputType: row.outputType,
  };
}

export function createLeadScoreService(deps: { db: Kysely<DB> }) {
  return {
    /** GET /api/v2/lead-scores: every definition, disabled ones included (they carry `enabled: false`), in ID order. */
    async list(communityId: number) {
      return (await scores.listDefinitions(deps.db, communityId)).map(present);
    },

    /** GET /api/v2/lead-scores/{id}. */
    async get(communityId: number, id: number) {
      const row = await scores.findDefinition(deps.db, communityId, id);
      if (!row) throw notFound('lead_score_not_found', `lead score ${formatId('lead_score', id)} not found`);
      return present(row);
    },
  };
}

export type LeadScoreService = ReturnType<typeof createLeadScoreService>;

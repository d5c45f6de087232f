import { parseId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { LeadScoreDefinitionItem, LeadScoreDefinitionList, LeadScoreParams } from './lead-score.schemas.ts';
import type { LeadScoreService } from './lead-score.service.ts';

export function leadScoreRoutes(app: HearthApp, services: { leadScores: LeadScoreService }) {
  app.get(
    '/api/v2/lead-scores',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'listLeadScores',
        tags: ['v2'],
        summary: 'List lead score definitions',
        description: 'Every lead score definition in ID order, disabled ones included (`enabled: false`). Not paged.',
        response: { 200: LeadScoreDefinitionList },
      },
    },
    async (request) => ({ success: true as const, data: await services.leadScores.list(contextOf(request).communityId) }),
  );

  app.get(
    '/api/v2/lead-scores/:id',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'getLeadScore',
        tags: ['v2'],
        summary: 'Get a lead score definition',
        params: LeadScoreParams,
        response: { 200: LeadScoreDefinitionItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.leadScores.get(contextOf(request).communityId, parseId('lead_score', request.params.id)),
    }),
  );
}

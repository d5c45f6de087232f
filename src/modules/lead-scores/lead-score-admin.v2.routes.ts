import { parseId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  AdminLeadScoreParams,
  AdminLeadScoreResponse,
  AdminLeadScoresQuery,
  AdminLeadScoresResponse,
  DryRunQuery,
  DryRunResponse,
  LeadScoreChangesBody,
  NewLeadScoreBody,
} from './lead-score-admin.schemas.ts';
import type { LeadScoreAdminService } from './lead-score-admin.service.ts';

export function leadScoreAdminRoutes(app: HearthApp, services: { leadScoreAdmin: LeadScoreAdminService }) {
  const admin = { auth: { all: ['admin' as const] } };
  const computed =
    'The score is computed by Hearth (docs/lead-scores.md): score = min(scoreCap, min(activityCap, Σ weight × 0.5^(age/halfLifeDays)) + Σ fit points), rounded to 2 decimals.';

  app.post(
    '/api/v2/admin/lead-scores',
    {
      config: admin,
      schema: {
        operationId: 'createLeadScore',
        tags: ['admin'],
        summary: 'Define a lead score',
        description: `${computed} Creating an enabled definition enqueues its full recompute (\`recomputeJobId\`). An invalid definition is a 400 naming each bad path.`,
        body: NewLeadScoreBody,
        response: { 201: AdminLeadScoreResponse },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await services.leadScoreAdmin.create(contextOf(request), request.body) }),
  );

  app.post(
    '/api/v2/admin/lead-scores/dry-run',
    {
      config: admin,
      schema: {
        operationId: 'dryRunLeadScore',
        tags: ['admin'],
        summary: 'Show the top records a lead score definition would give, storing nothing',
        description: 'Takes a definition as `createLeadScore` does (name, enabled, isPrimaryScore and outputType may be left out). Recorded in the audit log.',
        querystring: DryRunQuery,
        body: NewLeadScoreBody,
        response: { 200: DryRunResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.leadScoreAdmin.dryRun(contextOf(request), request.body, request.query.limit ?? 10) }),
  );

  app.get(
    '/api/v2/admin/lead-scores',
    {
      config: admin,
      schema: {
        operationId: 'listAdminLeadScores',
        tags: ['admin'],
        summary: 'List lead score definitions with how they are computed',
        querystring: AdminLeadScoresQuery,
        response: { 200: AdminLeadScoresResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.leadScoreAdmin.list(contextOf(request).communityId, request.query.includeRetired ?? false),
    }),
  );

  app.get(
    '/api/v2/admin/lead-scores/:id',
    {
      config: admin,
      schema: {
        operationId: 'getAdminLeadScore',
        tags: ['admin'],
        summary: 'Get a lead score definition, retired or not',
        params: AdminLeadScoreParams,
        response: { 200: AdminLeadScoreResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.leadScoreAdmin.get(contextOf(request).communityId, parseId('lead_score', request.params.id)),
    }),
  );

  app.patch(
    '/api/v2/admin/lead-scores/:id',
    {
      config: admin,
      schema: {
        operationId: 'updateLeadScore',
        tags: ['admin'],
        summary: 'Change a lead score definition',
        description:
          'What is given changes; each of halfLifeDays, lookbackDays, activityCap, scoreCap, weights and fit given replaces the stored one whole. A change to the rules, or enabling it, makes a new version and enqueues its full recompute.',
        params: AdminLeadScoreParams,
        body: LeadScoreChangesBody,
        response: { 200: AdminLeadScoreResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.leadScoreAdmin.update(contextOf(request), parseId('lead_score', request.params.id), request.body),
    }),
  );

  app.delete(
    '/api/v2/admin/lead-scores/:id',
    {
      config: admin,
      schema: {
        operationId: 'retireLeadScore',
        tags: ['admin'],
        summary: 'Retire a lead score definition',
        description: 'No longer shown, computed, filtered or sorted by; its scores are removed. A retired definition answers 404 here.',
        params: AdminLeadScoreParams,
        response: { 200: AdminLeadScoreResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.leadScoreAdmin.retire(contextOf(request), parseId('lead_score', request.params.id)) }),
  );
}

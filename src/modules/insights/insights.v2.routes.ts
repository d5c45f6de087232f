import { contextOf, type HearthApp } from '../../http/types.ts';
import { InsightsRefreshBody, InsightsRefreshResponse, InsightsStatusResponse } from './insights.schemas.ts';
import type { InsightsService } from './insights.service.ts';
import { ResearchAnswersImportBody, ResearchAnswersImportResponse } from './research-prompt-admin.schemas.ts';
import type { ResearchPromptAdminService } from './research-prompt-admin.service.ts';

export function insightsRoutes(app: HearthApp, services: { insights: InsightsService; researchPrompts: ResearchPromptAdminService }) {
  const admin = { auth: { all: ['admin' as const] } };

  app.get(
    '/api/v2/admin/insights',
    {
      config: admin,
      schema: {
        operationId: 'getInsightsStatus',
        tags: ['admin'],
        summary: 'Whether a model writes insights, what it wrote, and its latest run',
        response: { 200: InsightsStatusResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.insights.status(contextOf(request).communityId) }),
  );

  app.post(
    '/api/v2/admin/insights/refresh',
    {
      config: admin,
      schema: {
        operationId: 'refreshInsights',
        tags: ['admin'],
        summary: 'Have the model write spark summaries, activate messages and research answers now (as a job)',
        description:
          'Only for contacts and answers whose data moved since they were written, unless `all`. 409 without a configured model endpoint. ' +
          'The run is a job: its progress shows in GET /api/v2/admin/insights.',
        body: InsightsRefreshBody,
        response: { 202: InsightsRefreshResponse },
      },
    },
    async (request, reply) => reply.code(202).send({ success: true as const, data: await services.insights.refresh(contextOf(request), request.body ?? {}) }),
  );

  app.post(
    '/api/v2/admin/research-answers',
    {
      config: admin,
      schema: {
        operationId: 'importResearchAnswers',
        tags: ['admin'],
        summary: 'Import research answers',
        description:
          'Up to 1,000 `{organizationId or domain, promptId, answer}`, checked whole first: one unknown organization or prompt and nothing is stored (the 400 names them). ' +
          'An imported answer replaces the organization’s answer to the prompt, and the model never overwrites it.',
        body: ResearchAnswersImportBody,
        response: { 200: ResearchAnswersImportResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.researchPrompts.importAnswers(contextOf(request), request.body.answers) }),
  );
}

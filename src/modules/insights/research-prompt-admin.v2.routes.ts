import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  NewResearchPromptBody,
  ResearchPromptChangesBody,
  ResearchPromptParams,
  ResearchPromptResponse,
  ResearchPromptsQuery,
  ResearchPromptsResponse,
} from './research-prompt-admin.schemas.ts';
import type { ResearchPromptAdminService } from './research-prompt-admin.service.ts';

export function researchPromptAdminRoutes(app: HearthApp, services: { researchPrompts: ResearchPromptAdminService }) {
  const admin = { auth: { all: ['admin' as const] } };

  app.post(
    '/api/v2/admin/research-prompts',
    {
      config: admin,
      schema: {
        operationId: 'createResearchPrompt',
        tags: ['admin'],
        summary: 'Define a research prompt',
        description: 'A question the configured model answers about each organization from its own data (docs/insights.md); answers can be imported too.',
        body: NewResearchPromptBody,
        response: { 201: ResearchPromptResponse },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await services.researchPrompts.create(contextOf(request), request.body) }),
  );

  app.get(
    '/api/v2/admin/research-prompts',
    {
      config: admin,
      schema: {
        operationId: 'listResearchPrompts',
        tags: ['admin'],
        summary: 'List research prompts',
        querystring: ResearchPromptsQuery,
        response: { 200: ResearchPromptsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await services.researchPrompts.list(contextOf(request).communityId, request.query.includeRetired ?? false),
    }),
  );

  app.get(
    '/api/v2/admin/research-prompts/:promptId',
    {
      config: admin,
      schema: {
        operationId: 'getResearchPrompt',
        tags: ['admin'],
        summary: 'Get a live research prompt',
        params: ResearchPromptParams,
        response: { 200: ResearchPromptResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.researchPrompts.get(contextOf(request).communityId, request.params.promptId) }),
  );

  app.patch(
    '/api/v2/admin/research-prompts/:promptId',
    {
      config: admin,
      schema: {
        operationId: 'updateResearchPrompt',
        tags: ['admin'],
        summary: 'Change a research prompt',
        description: 'What is given changes. A changed `prompt` has the model write its answers again at the next run.',
        params: ResearchPromptParams,
        body: ResearchPromptChangesBody,
        response: { 200: ResearchPromptResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.researchPrompts.update(contextOf(request), request.params.promptId, request.body) }),
  );

  app.delete(
    '/api/v2/admin/research-prompts/:promptId',
    {
      config: admin,
      schema: {
        operationId: 'retireResearchPrompt',
        tags: ['admin'],
        summary: 'Retire a research prompt',
        description: 'Its answers are no longer shown (they stay stored); its promptId is free for a new prompt. A retired prompt answers 404 here.',
        params: ResearchPromptParams,
        response: { 200: ResearchPromptResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.researchPrompts.retire(contextOf(request), request.params.promptId) }),
  );
}

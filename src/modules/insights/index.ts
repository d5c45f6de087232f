// The face of the insights module: what the rest of the code uses of it. Its other files are private.
export { insightsRoutes } from './insights.v2.routes.ts';
export { createInsightsService, type InsightsService } from './insights.service.ts';
export { createLlmClient, type LlmClient } from './llm-client.ts';
export { researchPromptAdminRoutes } from './research-prompt-admin.v2.routes.ts';
export {
  checkPromptKey,
  createResearchPromptAdminService,
  type ImportedAnswer,
  type NewResearchPrompt,
  type ResearchPromptAdminService,
  type ResearchPromptChanges,
} from './research-prompt-admin.service.ts';

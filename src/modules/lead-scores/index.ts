// The face of the lead-scores module: what the rest of the code uses of it. Its other files are private.
export { presentKeyFactors, presentLeadScores } from './lead-score.presenters.ts';
export { definitionIds, findDefinition, leadScoreSort, scoresOf, type StoredScore } from './lead-score.repository.ts';
export { leadScoreRoutes } from './lead-score.routes.ts';
export { LeadScoreKeyFactors, LeadScoreValues } from './lead-score.schemas.ts';
export { createLeadScoreService } from './lead-score.service.ts';

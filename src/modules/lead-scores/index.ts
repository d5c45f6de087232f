// The face of the lead-scores module: what the rest of the code uses of it. Its other files are private.
export { type LeadScoreDefinitions, leadScoreFamily } from './lead-score.filters.ts';
export { presentKeyFactors, presentLeadScores } from './lead-score.presenters.ts';
export { type LeadScoreEntity, type StoredScore } from './lead-score.repository.ts';
export { leadScoreRoutes } from './lead-score.v2.routes.ts';
export { LeadScoreKeyFactors, LeadScoreValues } from './lead-score.schemas.ts';
export { createLeadScoreService } from './lead-score.service.ts';
export { leadScoreAdminRoutes } from './lead-score-admin.v2.routes.ts';
export { createLeadScoreAdminService, type LeadScoreAdminService, type LeadScoreChanges, type NewLeadScore } from './lead-score-admin.service.ts';
export { createLeadScoreComputeService, type LeadScoreComputeService } from './lead-score-compute.service.ts';
export { type Mark } from './lead-score-marks.repository.ts';
export { LeadScoreChangesBody, NewLeadScoreBody } from './lead-score-admin.schemas.ts';
export { leadScoreTx, type LeadScoreTxService } from './lead-score-tx.service.ts';

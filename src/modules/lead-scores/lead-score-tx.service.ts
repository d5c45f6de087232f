// What other modules do with lead-scores inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { definitionIds, findDefinition, leadScoreSort, scoresOf } from './lead-score.repository.ts';
import { markForScoring, scoringMarks } from './lead-score-marks.repository.ts';

export const leadScoreTx = { definitionIds, findDefinition, leadScoreSort, scoresOf, markForScoring, scoringMarks };
export type LeadScoreTxService = typeof leadScoreTx;

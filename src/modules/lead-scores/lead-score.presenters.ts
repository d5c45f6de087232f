import type { StoredScore } from './lead-score.repository.ts';

/** `leadScores` of a contact or organization: `[{scoreId, score, percentile}]`. */
export function presentLeadScores(scores: readonly StoredScore[] | undefined) {
  return (scores ?? []).map(({ scoreId, score, percentile }) => ({ scoreId, score, percentile }));
}

/** `leadScoreKeyFactors`: `[{scoreId, factors: [{label, value, strength}]}]`, from what the scorer stored. */
export function presentKeyFactors(scores: readonly StoredScore[] | undefined) {
  return (scores ?? []).map(({ scoreId, keyFactors }) => ({
    scoreId,
    factors: (Array.isArray(keyFactors) ? keyFactors : []).filter(isFactor).map(({ label, value, strength }) => ({ label, value, strength })),
  }));
}

function isFactor(value: unknown): value is { label: string; value: string; strength: number } {
  const factor = value as { label?: unknown; value?: unknown; strength?: unknown } | null;
  return typeof factor?.label === 'string' && typeof factor.value === 'string' && typeof factor.strength === 'number';
}

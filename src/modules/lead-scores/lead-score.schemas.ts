import Type from 'typebox';

export const LeadScoreValues = Type.Array(
  Type.Object({ scoreId: Type.Integer(), score: Type.Number(), percentile: Type.Number() }),
  { description: 'Stored scores of the enabled lead score definitions.' },
);

export const LeadScoreKeyFactors = Type.Array(
  Type.Object({
    scoreId: Type.Integer(),
    factors: Type.Array(Type.Object({ label: Type.String(), value: Type.String(), strength: Type.Number() })),
  }),
);

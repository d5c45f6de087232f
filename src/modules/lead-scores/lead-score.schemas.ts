import Type from 'typebox';
import { v2Definitions, v2Item } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const LeadScoreValues = Type.Array(Type.Object({ scoreId: Type.Integer(), score: Type.Number(), percentile: Type.Number() }), {
  description: 'Stored scores of the enabled lead score definitions.',
});

export const LeadScoreKeyFactors = Type.Array(
  Type.Object({
    scoreId: Type.Integer(),
    factors: Type.Array(Type.Object({ label: Type.String(), value: Type.String(), strength: Type.Number() })),
  }),
);

/** The v2 lead score definition. */
export const LeadScoreDefinition = component(
  'LeadScore',
  Type.Object({
    id: Type.String({ description: 'ls_N' }),
    name: Type.String(),
    enabled: Type.Boolean(),
    entityType: Type.String({ description: 'contact or organization' }),
    isPrimaryScore: Type.Boolean(),
    outputType: Type.String({ description: 'percentile or score' }),
  }),
);

export const LeadScoreParams = Type.Object({ id: Type.String({ description: 'ls_N' }) });

export const LeadScoreDefinitionItem = v2Item(LeadScoreDefinition);
export const LeadScoreDefinitionList = v2Definitions(LeadScoreDefinition);

import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

/** A promptId: what clients see in `researchResults` and imports name, so short, lowercase and stable. */
export const PROMPT_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const promptId = Type.String({
  pattern: PROMPT_KEY.source,
  description: 'Lowercase letters, digits, `-` and `_`, up to 64, starting with a letter or digit; unique among the live prompts.',
});
const promptName = Type.String({ minLength: 1, maxLength: 200, description: 'How the prompt is shown (`promptName` of `researchResults`).' });
const prompt = Type.String({
  minLength: 1,
  maxLength: 4000,
  description: "The question the model answers about each organization, from the organization's own data (docs/insights.md).",
});
const isPrimaryPrompt = Type.Boolean({ description: 'The one prompt shown first; making a prompt primary makes the previous one not.' });

export const ResearchPrompt = component(
  'ResearchPrompt',
  Type.Object({
    promptId: Type.String(),
    promptName: Type.String(),
    prompt: Type.String(),
    isPrimaryPrompt: Type.Boolean(),
    answerCount: Type.Integer({ description: 'Organizations with an answer (imported or the model’s).' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time', description: 'When the prompt text last changed: the model’s answers older than it are written again.' }),
    retiredAt: Nullable(Type.String({ format: 'date-time', description: 'When it was retired: its answers are no longer shown.' })),
  }),
);

export const NewResearchPromptBody = Type.Object(
  { promptId, promptName, prompt, isPrimaryPrompt: Type.Optional(isPrimaryPrompt) },
  { additionalProperties: false },
);

export const ResearchPromptChangesBody = Type.Object(
  { promptName: Type.Optional(promptName), prompt: Type.Optional(prompt), isPrimaryPrompt: Type.Optional(isPrimaryPrompt) },
  { additionalProperties: false, minProperties: 1 },
);

export const ResearchPromptParams = Type.Object({ promptId: Type.String({ description: 'The promptId' }) }, { additionalProperties: false });

export const ResearchPromptsQuery = Type.Object(
  { includeRetired: Type.Optional(Type.Boolean({ default: false, description: 'List retired prompts too.' })) },
  { additionalProperties: false },
);

export const ResearchPromptResponse = v2Item(ResearchPrompt);
export const ResearchPromptsResponse = v2Item(Type.Array(ResearchPrompt));

export const MAX_IMPORTED_ANSWERS = 1000;

export const ResearchAnswersImportBody = Type.Object(
  {
    answers: Type.Array(
      Type.Object(
        {
          organizationId: Type.Optional(Type.String({ description: 'o_N; or give `domain`.' })),
          domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'One of the organization’s domains; or give `organizationId`.' })),
          promptId: Type.String({ minLength: 1, maxLength: 64, description: 'A live research prompt.' }),
          answer: Type.String({ minLength: 1, maxLength: 4000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_IMPORTED_ANSWERS },
    ),
  },
  { additionalProperties: false },
);

export const ResearchAnswersImportResponse = v2Item(
  Type.Object({ imported: Type.Integer({ description: 'Answers stored (an organization’s earlier answer to the prompt is replaced).' }) }),
);

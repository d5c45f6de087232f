import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Cursor, CursorMeta, Limit, Nullable, v2Item, v2Page } from '../../http/schemas.ts';
import { THRESHOLD } from './merge-suggestion-rules.ts';

export const MergeSuggestionContact = component(
  'MergeSuggestionContact',
  Type.Object({
    id: Type.String({ description: 'c_N' }),
    name: Type.String(),
    fullName: Nullable(Type.String()),
    username: Nullable(Type.String()),
    primaryEmail: Nullable(Type.String()),
    avatarUrl: Nullable(Type.String()),
    title: Nullable(Type.String()),
    city: Nullable(Type.String()),
    country: Nullable(Type.String()),
    organization: Nullable(
      Type.Object({
        id: Type.String({ description: 'o_N' }),
        name: Type.String(),
        domain: Type.String(),
      }),
    ),
    identities: Type.Array(
      Type.Object({
        type: Type.String({ description: '`email`, `github`, `twitter`, `linkedin` or `discord`' }),
        value: Type.String({ description: 'As first given' }),
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
  }),
);

export const MergeSuggestion = component(
  'MergeSuggestion',
  Type.Object({
    id: Type.String({ description: 'ms_N' }),
    score: Type.Number({ minimum: 0, maximum: 1, description: 'How likely the two contacts are one person, 0..1.' }),
    reasons: Type.Array(Type.String(), { description: 'The evidence, one sentence each.' }),
    status: Type.Union([Type.Literal('open'), Type.Literal('dismissed')]),
    contacts: Type.Array(MergeSuggestionContact, { minItems: 2, maxItems: 2, description: 'The two contacts, the older first.' }),
    computedAt: Type.String({ format: 'date-time', description: 'When the pair was last computed.' }),
    dismissedAt: Nullable(Type.String({ format: 'date-time' })),
    dismissedBy: Nullable(Type.String({ description: 'Who dismissed it, as the audit log names writers.' })),
  }),
);

export const MergeSuggestionsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    minScore: Type.Optional(
      Type.Number({ minimum: THRESHOLD, maximum: 1, description: `Only pairs scoring at least this (${THRESHOLD}..1; default ${THRESHOLD}, the threshold).` }),
    ),
    contactId: Type.Optional(Type.String({ minLength: 1, description: 'Only pairs with this contact (c_N).' })),
  },
  { additionalProperties: false },
);

export const MergeSuggestionParams = Type.Object({ id: Type.String({ description: 'ms_N' }) });

export const MergeSuggestionPage = v2Page(MergeSuggestion, CursorMeta);
export const MergeSuggestionItem = v2Item(MergeSuggestion);

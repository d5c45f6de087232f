// The face of the merge suggestions module: what the rest of the code uses of it. Its other files are private.
export { mergeSuggestionRoutes } from './merge-suggestion.v2.routes.ts';
export { createMergeSuggestionService, type MergeSuggestionService } from './merge-suggestion.service.ts';
export { nameKey, nameKeySql } from './match-keys.ts';

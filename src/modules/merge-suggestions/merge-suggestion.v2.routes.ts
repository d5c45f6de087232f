import { parseId } from '../../core/ids.ts';
import { listQueryOf } from '../../http/read-query.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { v2MergeSuggestion } from './merge-suggestion.presenters.ts';
import { MergeSuggestionItem, MergeSuggestionPage, MergeSuggestionParams, MergeSuggestionsQuery } from './merge-suggestion.schemas.ts';
import type { MergeSuggestionService } from './merge-suggestion.service.ts';
import { THRESHOLD } from './merge-suggestion-rules.ts';

export function mergeSuggestionRoutes(app: HearthApp, services: { mergeSuggestions: MergeSuggestionService }) {
  // A static path: Fastify's router prefers it to `/api/v2/contacts/:id`, whichever was added first.
  app.get(
    '/api/v2/contacts/merge-suggestions',
    {
      config: { auth: { all: ['contacts:read'] }, read: { paged: true } },
      schema: {
        operationId: 'listMergeSuggestions',
        tags: ['v2'],
        summary: 'List likely duplicate contacts',
        description:
          `Pairs of contacts that are probably one person but share no identifier that would merge them, scored 0..1 ` +
          `with the evidence in words, best first, then by pair. Computed in the background as data arrives ` +
          `(within about a minute of a push); only pairs scoring at least ${THRESHOLD} are kept, and dismissed ones are left out. ` +
          'To accept a suggestion, merge its contacts: `POST /api/v2/contacts/{id}/merge` with `{"contactId": "c_N"}`, ' +
          'either contact as `{id}` (the older one survives). To reject it, dismiss it.',
        querystring: MergeSuggestionsQuery,
        response: { 200: MergeSuggestionPage },
      },
    },
    async (request) => {
      const { minScore, contactId } = request.query;
      const page = await services.mergeSuggestions.page(
        contextOf(request).communityId,
        { minScore, contactId: contactId === undefined ? undefined : parseId('contact', contactId) },
        listQueryOf(request).page,
      );
      return { success: true as const, data: page.rows.map(v2MergeSuggestion), meta: { nextCursor: page.nextCursor } };
    },
  );

  app.post(
    '/api/v2/contacts/merge-suggestions/:id/dismiss',
    {
      config: { auth: { all: ['contacts:write'] } },
      schema: {
        operationId: 'dismissMergeSuggestion',
        tags: ['v2'],
        summary: 'Dismiss a likely duplicate',
        description:
          'The two contacts are not one person: the pair is no longer listed, and stays dismissed whatever data arrives ' +
          'later. Dismissing a dismissed suggestion changes nothing. Answers the suggestion.',
        params: MergeSuggestionParams,
        response: { 200: MergeSuggestionItem },
      },
    },
    async (request) => ({
      success: true as const,
      data: v2MergeSuggestion(await services.mergeSuggestions.dismiss(contextOf(request), parseId('merge_suggestion', request.params.id))),
    }),
  );
}

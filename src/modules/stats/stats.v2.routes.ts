import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  ActivityStatsQuery,
  ActivityStatsResponse,
  ContactStatsQuery,
  ContactStatsResponse,
  DEFAULT_SPAN_DAYS,
  HighlightsQuery,
  HighlightsResponse,
  MAX_SPAN_DAYS,
} from './stats.schemas.ts';
import type { StatsService } from './stats.service.ts';

const PERIOD =
  `The period is \`startDate\`..\`endDate\` (UTC days, both inclusive; default the ${DEFAULT_SPAN_DAYS} days to today, ` +
  `at most ${MAX_SPAN_DAYS}); the previous period is as many days just before it. Exact at any moment: read from ` +
  'daily rollups kept by the database as activities are written, moved and deleted (docs/stats.md).';

export function statsRoutes(app: HearthApp, services: { stats: StatsService }) {
  app.get(
    '/api/v2/stats/activity',
    {
      config: { auth: { all: ['activities:read'] } },
      schema: {
        operationId: 'getActivityStats',
        tags: ['v2'],
        summary: 'Activity over time',
        description:
          `Activities by day or week, grouped by source, type or category, with the previous period's totals. ${PERIOD} ` +
          "Each group's `lightFilter` selects its activities in GET /api/v2/activities.",
        querystring: ActivityStatsQuery,
        response: { 200: ActivityStatsResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.stats.activity(contextOf(request).communityId, request.query) }),
  );

  app.get(
    '/api/v2/stats/contacts',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'getContactStats',
        tags: ['v2'],
        summary: 'Active and new contacts',
        description:
          'Contacts with at least one activity in the period (active) and contacts whose first activity is in it ' +
          `(new), each against the previous period, by day or week. ${PERIOD}`,
        querystring: ContactStatsQuery,
        response: { 200: ContactStatsResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.stats.contacts(contextOf(request).communityId, request.query) }),
  );

  app.get(
    '/api/v2/stats/highlights',
    {
      config: { auth: { all: ['activities:read'] } },
      schema: {
        operationId: 'getStatsHighlights',
        tags: ['v2'],
        summary: 'Top contributors, rising organizations, surging topics, lead-score distribution',
        description: `What stood out in the period, each against the previous period. ${PERIOD}`,
        querystring: HighlightsQuery,
        response: { 200: HighlightsResponse },
      },
    },
    async (request) => ({ success: true as const, data: await services.stats.highlights(contextOf(request).communityId, request.query) }),
  );
}

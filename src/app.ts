import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyServerOptions, type RouteOptions } from 'fastify';
import Type from 'typebox';
import { createErrorHandler, errorFormatFor } from './http/error-handler.ts';
import { HearthError } from './http/errors.ts';
import { createRequestGuard } from './http/request-guard.ts';
import { CoreError, Forbidden, MessageError, RateLimited, V2Error } from './http/schemas.ts';
import type { HearthApp } from './http/types.ts';
import { findInvalidText, validatorCompiler } from './http/validation.ts';
import { activityRoutes } from './modules/activities/activity.routes.ts';
import { activityTypeRoutes } from './modules/activity-types/activity-type.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { bulkUpdateRoutes } from './modules/bulk-updates/bulk-update.routes.ts';
import { contactLookupRoutes } from './modules/contacts/contact-lookup.routes.ts';
import { contactRoutes } from './modules/contacts/contact.routes.ts';
import { contactCustomFieldRoutes } from './modules/custom-fields/contact-custom-fields.routes.ts';
import { customFieldDefinitionRoutes } from './modules/custom-fields/custom-field-definitions.routes.ts';
import { filterFieldRoutes } from './modules/filter-fields/filter-fields.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { ingestionRoutes } from './modules/ingestion/ingestion.routes.ts';
import { leadScoreRoutes } from './modules/lead-scores/lead-score.routes.ts';
import { locationRoutes } from './modules/locations/location.routes.ts';
import { meRoutes } from './modules/me/me.routes.ts';
import { organizationReadRoutes } from './modules/organizations/organization-read.routes.ts';
import { objectWriteRoutes } from './modules/objects/object-write.routes.ts';
import { objectAdminRoutes } from './modules/objects/object-admin.routes.ts';
import { objectRoutes } from './modules/objects/object.routes.ts';
import { organizationRoutes } from './modules/organizations/organization.routes.ts';
import { privacyRoutes } from './modules/privacy/privacy.routes.ts';
import { segmentWriteRoutes } from './modules/segments/segment-write.routes.ts';
import { segmentRoutes } from './modules/segments/segment.routes.ts';
import { sourceRoutes } from './modules/sources/source.routes.ts';
import { sourceImportRoutes } from './modules/source-imports/source-import.routes.ts';
import { tagRoutes } from './modules/tags/tag.routes.ts';
import { topicRoutes } from './modules/topics/topic.routes.ts';
import { tokenStatusRoutes } from './modules/tokens/token-status.routes.ts';
import { tokenRoutes } from './modules/tokens/token.routes.ts';
import { websiteVisitRoutes } from './modules/website-visits/website-visit.routes.ts';
import type { Services } from './services.ts';
import { VERSION } from './version.ts';

export interface AppOptions {
  services: Services;
  publicUrl: string;
  /** Pino options, or false for no logging (tests). */
  logger: FastifyServerOptions['logger'];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(options: AppOptions): Promise<HearthApp> {
  const { services } = options;
  const docsUrl = `${options.publicUrl}/docs`;

  const handleError = createErrorHandler(docsUrl);
  const app = Fastify({
    logger: options.logger,
    // A caller's X-Request-Id is kept (when it looks like one), so logs can be joined across services.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    forceCloseConnections: 'idle',
    // Errors Fastify finds before routing (a malformed %-escape) answer in our formats too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    // Path parameters carry email addresses (DELETE /community/v1/user/{email}), up to 254 characters.
    routerOptions: { maxParamLength: 500 },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest('context', null);
  app.addHook('onRoute', declareRoute);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.addHook('onRequest', createRequestGuard({ tokens: services.tokens, rateLimiter: services.rateLimiter }));
  // Once closing, answer requests in flight with `Connection: close`: server.close() waits for every
  // connection, and a keep-alive one left idle would hold the shutdown for keepAliveTimeout (72 s).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('Connection', 'close');
  });
  app.addHook('preValidation', async (request) => {
    for (const [part, value, coreReason] of [
      ['query parameter', request.query, 'invalid-request-parameters'],
      ['path parameter', request.params, 'invalid-request-parameters'],
      ['body field', request.body, 'invalid-request-body'],
    ] as const) {
      const invalid = findInvalidText(value);
      if (invalid) throw new HearthError(400, 'invalid_parameters', `${part} "${invalid.path}" ${invalid.problem}`, { coreReason });
    }
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request) => {
    throw new HearthError(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hearth',
        version: VERSION,
        description:
          'Community data service: the v2 family (/api/v2) reads and updates contacts, organizations and activities; ' +
          'the core family (/community/v1) ingests users, activities and organizations. Every call takes ' +
          '`Authorization: Bearer <token>`.',
      },
      servers: [{ url: options.publicUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      tags: [
        { name: 'v2', description: 'Read and update API' },
        { name: 'core', description: 'Ingestion API' },
        { name: 'admin', description: 'Tokens and sources (admin scope)' },
        { name: 'health', description: 'Probes' },
      ],
    },
  });
  await app.register(scalar, { routePrefix: '/docs', configuration: { url: '/openapi.json', title: 'Hearth API' } });
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());

  healthRoutes(app, services);
  tokenStatusRoutes(app);
  tokenRoutes(app, services);
  sourceRoutes(app, services);
  activityTypeRoutes(app, services);
  meRoutes(app, services);
  ingestionRoutes(app, services);
  contactLookupRoutes(app, services);
  contactRoutes(app, services);
  organizationRoutes(app, services);
  organizationReadRoutes(app, services);
  tagRoutes(app, services);
  segmentRoutes(app, services);
  segmentWriteRoutes(app, services);
  contactCustomFieldRoutes(app, services);
  privacyRoutes(app, services);
  locationRoutes(app, services);
  topicRoutes(app, services);
  filterFieldRoutes(app, services);
  activityRoutes(app, services);
  customFieldDefinitionRoutes(app, services);
  leadScoreRoutes(app, services);
  objectRoutes(app, services);
  objectWriteRoutes(app, services);
  objectAdminRoutes(app, services);
  websiteVisitRoutes(app, services);
  sourceImportRoutes(app, services);
  bulkUpdateRoutes(app, services);
  auditRoutes(app, services);

  await app.ready();
  return app;
}

/**
 * Runs for every route as it is added: completes the declaration with what every route shares, and refuses
 * a route that forgot to say who may call it.
 * - A query string schema that allows nothing, when the route takes no query parameters: unknown query
 *   parameters are always a 400, never silently ignored.
 * - Error response schemas in the route's wire format, and the bearer security requirement, for OpenAPI.
 */
function declareRoute(route: RouteOptions): void {
  const schema = (route.schema ??= {});
  const config = (route.config ??= {}) as NonNullable<RouteOptions['config']> & {
    auth?: unknown;
    errors?: string;
    probe?: boolean;
  };
  if (config.auth === undefined) {
    // Hidden routes are the documentation's own assets.
    if (!(schema as { hide?: boolean }).hide) throw new Error(`route ${route.method} ${route.url} does not declare its auth`);
    config.auth = 'public';
  }
  schema.querystring ??= Type.Object({}, { additionalProperties: false });
  if ((schema as { hide?: boolean }).hide) return;

  const format = config.errors ?? errorFormatFor(route.url);
  const failure = format === 'v2' ? V2Error : format === 'core' ? CoreError : MessageError;
  const response = (schema.response ??= {}) as Record<string, unknown>;
  if (config.auth !== 'public') {
    response[403] ??= Forbidden;
    (schema as { security?: unknown }).security = [{ bearerAuth: [] }];
  }
  if (!config.probe) response[429] ??= RateLimited;
  response['4XX'] ??= failure;
  response['5XX'] ??= failure;
}

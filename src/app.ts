import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifySchema, type FastifyServerOptions, type onSendHookHandler, type RouteOptions } from 'fastify';
import Type from 'typebox';
import { API_REFERENCE, OPENAPI_DOCUMENT, registerApiReference } from './http/api-reference.ts';
import { components } from './http/components.ts';
import { createErrorHandler, errorFormatFor } from './http/error-handler.ts';
import { HearthError } from './core/errors.ts';
import { runInRequestScope } from './db/request-scope.ts';
import { createClientErrorHandler, jsonBodyParser, MAX_HEADER_BYTES, NDJSON, ndjsonBodyParser, plainTextBodyParser } from './http/raw-input.ts';
import { createRequestGuard } from './http/request-guard.ts';
import { trustProxyOption } from './http/client-address.ts';
import type { TrustProxy } from './config/config.ts';
import { CoreError, Forbidden, MessageError, RateLimited, V2Error } from './http/schemas.ts';
import type { HearthApp } from './http/types.ts';
import { lazySerializers } from './http/serialization.ts';
import { validatorCompiler } from './http/validation.ts';
import { findInvalidText } from './core/validation.ts';
import { activityRoutes } from './modules/activities/index.ts';
import { activityTypeRoutes } from './modules/activity-types/index.ts';
import { auditRoutes } from './modules/audit/index.ts';
import { bulkUpdateRoutes } from './modules/bulk-updates/index.ts';
import { contactLookupRoutes } from './modules/contacts/index.ts';
import { contactRoutes } from './modules/contacts/index.ts';
import { contactCustomFieldRoutes } from './modules/custom-fields/index.ts';
import { customFieldAdminRoutes, customFieldDefinitionRoutes } from './modules/custom-fields/index.ts';
import { filterFieldRoutes } from './modules/filter-fields/index.ts';
import { healthRoutes } from './modules/health/index.ts';
import { ingestionRoutes } from './modules/ingestion/index.ts';
import { jobRoutes } from './modules/jobs/index.ts';
import { metricsRoutes } from './modules/metrics/index.ts';
import { leadScoreAdminRoutes, leadScoreRoutes } from './modules/lead-scores/index.ts';
import { locationRoutes } from './modules/locations/index.ts';
import { meRoutes } from './modules/me/index.ts';
import { mergeSuggestionRoutes } from './modules/merge-suggestions/index.ts';
import { searchRoutes } from './modules/search/index.ts';
import { organizationReadRoutes } from './modules/organizations/index.ts';
import { objectWriteRoutes } from './modules/objects/index.ts';
import { objectAdminRoutes } from './modules/objects/index.ts';
import { objectRoutes } from './modules/objects/index.ts';
import { organizationRoutes } from './modules/organizations/index.ts';
import { privacyRoutes } from './modules/privacy/index.ts';
import { prospectorAdminRoutes } from './modules/prospector/index.ts';
import { prospectorRoutes } from './modules/prospector/index.ts';
import { segmentWriteRoutes } from './modules/segments/index.ts';
import { segmentRoutes } from './modules/segments/index.ts';
import { sourceRoutes } from './modules/sources/index.ts';
import { statsRoutes } from './modules/stats/index.ts';
import { sourceImportRoutes } from './modules/source-imports/index.ts';
import { tagRoutes } from './modules/tags/index.ts';
import { topicRoutes } from './modules/topics/index.ts';
import { jobTitleRoutes } from './modules/job-titles/index.ts';
import { industryRoutes } from './modules/industries/index.ts';
import { techProductRoutes } from './modules/tech-products/index.ts';
import { companyUpdateRoutes } from './modules/company-updates/index.ts';
import { feedRoutes } from './modules/feeds/index.ts';
import { buyingCommitteeRoutes } from './modules/buying-committees/index.ts';
import { tokenStatusRoutes } from './modules/tokens/index.ts';
import { tokenRoutes } from './modules/tokens/index.ts';
import { trackerRoutes, websiteVisitPushRoutes, websiteVisitRoutes } from './modules/website-visits/index.ts';
import { webhookRoutes } from './modules/webhooks/index.ts';
import { insightsRoutes, researchPromptAdminRoutes } from './modules/insights/index.ts';
import { appUserRoutes } from './modules/app-users/index.ts';
import { consoleRoutes } from './modules/console/index.ts';
import { connectorRoutes, receiverRoutes } from './modules/connectors/index.ts';
import type { Services } from './services.ts';
import { VERSION } from './version.ts';
import { createReadQueryHandler } from './http/read-query.ts';

export interface AppOptions {
  services: Services;
  publicUrl: string;
  /** Pino options, or false for no logging (tests). */
  logger: FastifyServerOptions['logger'];
  /** How long one statement of a request may run, in ms (PostgreSQL; 0 or absent: no limit). */
  statementTimeoutMs?: number;
  /** Cancels running statements of a request whose client has gone (Database.cancel). */
  cancelStatements?: (backends: number[]) => Promise<void>;
  /** Whose X-Forwarded-For names the client (HEARTH_TRUST_PROXY); off by default. */
  trustProxy?: TrustProxy;
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
    trustProxy: trustProxyOption(options.trustProxy ?? false),
    // Errors Fastify finds before routing (a malformed %-escape) answer in our formats too, and so do the
    // requests Node's HTTP parser refuses (raw-input.ts).
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    clientErrorHandler: createClientErrorHandler(docsUrl),
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    // No length limit of the router's own (it answers 414 in its own words): a path parameter is as long as
    // the request line allows, and the route's ID check says what is wrong with it.
    routerOptions: { maxParamLength: MAX_HEADER_BYTES },
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  for (const schema of components()) app.addSchema(schema);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
  app.addContentTypeParser(NDJSON, { parseAs: 'string' }, ndjsonBodyParser);
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, plainTextBodyParser(app));
  app.decorateRequest('context', null);
  app.decorateRequest('consoleSession', null);
  app.decorateRequest('readQuery', null);
  app.addHook('onRoute', declareRoute);
  // Requests are counted by route pattern as each route is added (modules/metrics); the rest as unmatched.
  app.addHook('onRoute', services.metrics.instrumentRoute);
  app.addHook('onResponse', services.metrics.countUnmatched);
  // Every statement of a request runs in its scope (db/request-scope.ts): under the statement timeout, and
  // cancelled when the client leaves before its answer is sent.
  app.addHook('onRequest', (_request, reply, done) => {
    const scope = runInRequestScope(options.statementTimeoutMs ?? 0, done);
    // 'finish', not writableFinished: an injected request (app.inject) closes with writableFinished still
    // false after its answer was sent.
    let answered = false;
    reply.raw.once('finish', () => (answered = true));
    reply.raw.once('close', () => {
      if (!answered && scope.backends.size > 0) void options.cancelStatements?.([...scope.backends]);
    });
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.addHook(
    'onRequest',
    createRequestGuard({
      tokens: services.tokens,
      sessions: services.appUsers,
      rateLimiter: services.rateLimiter,
      probes: services.probeCounter,
      publicUrl: options.publicUrl,
    }),
  );
  // Once draining or closing, answer with `Connection: close`: server.close() waits for every connection,
  // and a keep-alive one left idle would hold the shutdown for keepAliveTimeout (72 s); while draining, a
  // client that connects again is sent (by its load balancer) to a process that is staying.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing || services.readiness.draining) reply.header('Connection', 'close');
  });
  app.addHook('onSend', answerHeaders);
  app.addHook('preValidation', async (request) => {
    const body = request.routeOptions.config.itemsCheckedAlone || request.routeOptions.config.rawBody ? undefined : request.body;
    for (const [part, value, coreReason] of [
      ['query parameter', request.query, 'invalid-request-parameters'],
      ['path parameter', request.params, 'invalid-request-parameters'],
      ['body field', body, 'invalid-request-body'],
    ] as const) {
      const invalid = findInvalidText(value);
      if (invalid) throw new HearthError('invalid_parameters', `${part} "${invalid.path}" ${invalid.problem}`, { coreReason });
    }
  });
  app.addHook('preHandler', createReadQueryHandler(services.cursors));
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request) => {
    throw new HearthError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hearth',
        version: VERSION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description:
          'Community data service: the v2 family (/api/v2) reads and updates contacts, organizations and activities; ' +
          'the core family (/community/v1) ingests users, activities and organizations. Every call takes ' +
          '`Authorization: Bearer <token>`, but the probes, this documentation and the website tracker (`/t.js` and ' +
          "`/community/v1/t/{key}/…`, which take a source's public key).",
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'hearth_session',
            description: "The web console's session (POST /api/v2/session); writes also need its X-CSRF-Token header.",
          },
        },
      },
      tags: [
        { name: 'v2', description: 'Read and update API' },
        { name: 'core', description: 'Ingestion API' },
        { name: 'admin', description: 'Tokens and sources (admin scope)' },
        { name: 'health', description: 'Probes and this documentation' },
        { name: 'console', description: 'Web console sign-in, sessions and users' },
      ],
    },
    // Named schemas (http/components.ts) keep their names under components.schemas.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: documentDefaults,
  });
  await registerApiReference(app);
  app.get(
    OPENAPI_DOCUMENT,
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getOpenApiDocument',
        tags: ['health'],
        summary: 'This OpenAPI 3.1 document',
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI document' }) },
      },
    },
    // Any origin may read it: it is public, and the reference's page reads it from a sandbox, an origin of its own.
    async (_request, reply) => reply.header('Access-Control-Allow-Origin', '*').send(app.swagger()),
  );

  healthRoutes(app, services);
  tokenStatusRoutes(app);
  tokenRoutes(app, services);
  sourceRoutes(app, services);
  activityTypeRoutes(app, services);
  meRoutes(app, services);
  ingestionRoutes(app, services);
  contactLookupRoutes(app, services);
  contactRoutes(app, services);
  mergeSuggestionRoutes(app, services);
  searchRoutes(app, services);
  organizationRoutes(app, services);
  organizationReadRoutes(app, services);
  tagRoutes(app, services);
  segmentRoutes(app, services);
  segmentWriteRoutes(app, services);
  contactCustomFieldRoutes(app, services);
  privacyRoutes(app, services);
  locationRoutes(app, services);
  topicRoutes(app, services);
  jobTitleRoutes(app, services);
  industryRoutes(app, services);
  techProductRoutes(app, services);
  companyUpdateRoutes(app, services);
  feedRoutes(app, services);
  buyingCommitteeRoutes(app, services);
  filterFieldRoutes(app, services);
  activityRoutes(app, services);
  statsRoutes(app, services);
  customFieldDefinitionRoutes(app, services);
  customFieldAdminRoutes(app, services);
  leadScoreRoutes(app, services);
  leadScoreAdminRoutes(app, services);
  objectRoutes(app, services);
  objectWriteRoutes(app, services);
  objectAdminRoutes(app, services);
  websiteVisitRoutes(app, services);
  websiteVisitPushRoutes(app, services);
  trackerRoutes(app, services);
  prospectorRoutes(app, services);
  prospectorAdminRoutes(app, services);
  sourceImportRoutes(app, services);
  bulkUpdateRoutes(app, services);
  auditRoutes(app, services);
  researchPromptAdminRoutes(app, services);
  insightsRoutes(app, services);
  jobRoutes(app, services);
  metricsRoutes(app, services);
  webhookRoutes(app, services);
  connectorRoutes(app, services);
  receiverRoutes(app, services);
  appUserRoutes(app, services, options.publicUrl);
  consoleRoutes(app);

  await app.ready();
  return app;
}

/**
 * What every answer says besides its body. `nosniff`: a browser takes the declared type at its word, so a
 * JSON answer that echoes a client's text is never run as a page or a script. `no-store` on what a token
 * or session unlocked (and on every route that needs one, refusals included): no browser cache or proxy
 * keeps a community's data for the next user of the machine. Public answers (probes, the documentation,
 * the tracker's script) keep what their routes say, since nothing in them belongs to a caller.
 */
const answerHeaders: onSendHookHandler = (request, reply, _payload, done) => {
  reply.header('X-Content-Type-Options', 'nosniff');
  const authenticated = request.context !== null || (request.routeOptions.config.auth ?? 'public') !== 'public';
  if (authenticated && !reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
  done();
};

/**
 * Runs for every route as it is added: completes the declaration with what every route shares, and refuses
 * a route that forgot to say who may call it or what its operation is called.
 * - A query string schema that allows nothing, when the route takes no query parameters: unknown query
 *   parameters are always a 400, never silently ignored.
 * - Error response schemas in the route's wire format, and the security requirement (bearer, or none for
 *   public routes), for OpenAPI.
 */
function declareRoute(route: RouteOptions): void {
  if (route.url === API_REFERENCE && route.method === 'GET') {
    route.schema = {
      operationId: 'getApiReference',
      tags: ['health'],
      summary: 'This interactive API reference (HTML)',
      response: {
        200: { description: 'The reference page', content: { 'text/html': { schema: { type: 'string' } } } },
        301: { description: 'To the same page at /docs/', type: 'null' },
      },
    } as RouteOptions['schema'];
    route.config = { ...route.config, auth: 'public' } as RouteOptions['config'];
  }
  const schema = (route.schema ??= {}) as NonNullable<RouteOptions['schema']> & { hide?: boolean; operationId?: string; security?: unknown };
  const config = (route.config ??= {}) as NonNullable<RouteOptions['config']> & {
    auth?: unknown;
    errors?: string;
    probe?: boolean;
  };
  if (config.auth === undefined) {
    // Hidden routes are the documentation's own assets.
    if (!schema.hide) throw new Error(`route ${route.method} ${route.url} does not declare its auth`);
    config.auth = 'public';
  }
  schema.querystring ??= Type.Object({}, { additionalProperties: false });
  if (schema.hide) return;
  if (!schema.operationId) throw new Error(`route ${route.method} ${route.url} does not declare its operationId`);

  const format = config.errors ?? errorFormatFor(route.url);
  const failure = format === 'v2' ? V2Error : format === 'core' ? CoreError : MessageError;
  const response = (schema.response ??= {}) as Record<string, unknown>;
  if (config.auth === 'public') {
    schema.security = [];
  } else {
    response[403] ??= Forbidden;
    schema.security = [{ bearerAuth: [] }, { sessionCookie: [] }];
  }
  if (!config.probe) response[429] ??= RateLimited;
  response['4XX'] ??= failure;
  response['5XX'] ??= failure;
}

/**
 * For the document only: a parameter with a default may be left out, so it is not `required` there (the
 * validator fills the default in, which is why the schema lists it as required).
 */
function documentDefaults({ schema, url }: { schema: FastifySchema; url: string }) {
  const querystring = schema?.querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined;
  if (!querystring?.required || !querystring.properties) return { schema, url };
  const properties = querystring.properties;
  const required = querystring.required.filter((name) => properties[name]?.default === undefined);
  return { schema: { ...schema, querystring: { ...querystring, required } }, url };
}

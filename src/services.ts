import { createAppUserService } from './modules/app-users/index.ts';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import type { Config } from './config/config.ts';
import type { Engine, Listen, PoolUse } from './db/database.ts';
import type { DB } from './db/schema.ts';
import { CursorCodec } from './core/cursor.ts';
import { createProbeCounter, createRateLimiter } from './http/rate-limit.ts';
import { createJobQueue } from './jobs/job-queue.ts';
import { createActivityService } from './modules/activities/index.ts';
import { createActivityTypeService } from './modules/activity-types/index.ts';
import { createAuditService } from './modules/audit/index.ts';
import { createBulkUpdateService } from './modules/bulk-updates/index.ts';
import { createCommunityService } from './modules/communities/index.ts';
import { createContactLookupService } from './modules/contacts/index.ts';
import { createContactMergeService, createContactService } from './modules/contacts/index.ts';
import { createContactCustomFieldService } from './modules/custom-fields/index.ts';
import { createCustomFieldAdminService, createCustomFieldDefinitionService } from './modules/custom-fields/index.ts';
import { createFilterService } from './modules/filter-fields/index.ts';
import { createReadiness } from './modules/health/index.ts';
import { createIngestionService } from './modules/ingestion/index.ts';
import { createJobAdminService } from './modules/jobs/index.ts';
import { createMetricsService } from './modules/metrics/index.ts';
import { createLeadScoreAdminService, createLeadScoreComputeService, createLeadScoreService } from './modules/lead-scores/index.ts';
import { createLocationService } from './modules/locations/index.ts';
import { createMeService } from './modules/me/index.ts';
import { createSearchService } from './modules/search/index.ts';
import { createMergeSuggestionService } from './modules/merge-suggestions/index.ts';
import { createOrganizationReadService } from './modules/organizations/index.ts';
import { createObjectTypeService } from './modules/objects/index.ts';
import { createObjectWriteService } from './modules/objects/index.ts';
import { createObjectService } from './modules/objects/index.ts';
import { createObjectTypeAdminService } from './modules/objects/index.ts';
import { createObjectUpsertService } from './modules/objects/index.ts';
import { createOrganizationUpsertService } from './modules/organizations/index.ts';
import { createPrivacyService } from './modules/privacy/index.ts';
import { createProspectorImportService } from './modules/prospector/index.ts';
import { createProspectorService } from './modules/prospector/index.ts';
import { createSegmentWriteService } from './modules/segments/index.ts';
import { createSegmentService } from './modules/segments/index.ts';
import { createSourceService } from './modules/sources/index.ts';
import { createSourceImportService } from './modules/source-imports/index.ts';
import { createStatsService } from './modules/stats/index.ts';
import { createTagService } from './modules/tags/index.ts';
import { createTopicService } from './modules/topics/index.ts';
import { createJobTitleService } from './modules/job-titles/index.ts';
import { createIndustryService } from './modules/industries/index.ts';
import { createTechProductService } from './modules/tech-products/index.ts';
import { createCompanyUpdateService } from './modules/company-updates/index.ts';
import { createFeedService } from './modules/feeds/index.ts';
import { createBuyingCommitteeService, createTitleClassifier, SENIORITY_KEYS } from './modules/buying-committees/index.ts';
import { tokenTx } from './modules/tokens/index.ts';
import { createTokenService } from './modules/tokens/index.ts';
import { createTrackerService, createWebsiteVisitPushService, createWebsiteVisitService } from './modules/website-visits/index.ts';
import { createWebhookService } from './modules/webhooks/index.ts';
import { createConnectorService, type ConnectorKind } from './modules/connectors/index.ts';
import { createInsightsService, createLlmClient, createResearchPromptAdminService } from './modules/insights/index.ts';

export interface ServiceDeps {
  db: Kysely<DB>;
  /** The database's notifications; without them (the CLI) nothing that needs them is kept in memory. */
  listen?: Listen;
  clock: Clock;
  config: Pick<Config, 'jwtSecret' | 'rateLimit' | 'publicUrl'> &
    Partial<Pick<Config, 'allowPrivateFetch' | 'llm' | 'webhookTimeoutMs' | 'fileSourceRoot' | 'connectorSyncIntervalMs'>>;
  /** The platforms connectors are made for (CONNECTOR_KINDS by default; tests add local stand-ins). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  connectorKinds?: ConnectorKind<any, any>[];
  /** Where background work reports what a caller does not see (the insights model's failures); none by default. */
  log?: { info(details: object, message: string): void; warn(details: object, message: string): void };
  /** The database pool's use, for the metrics (Database.poolUse), and its engine; none: no pool gauges. */
  poolUse?: () => PoolUse;
  engine?: Engine;
  /** A Citus coordinator's database (Database.citus): statements are planned for their values there. */
  citus?: boolean;
}

/** The composition root: every service, wired once, shared by the HTTP app and the CLI. */
export async function createServices(deps: ServiceDeps) {
  const secret = deps.config.jwtSecret ?? (await tokenTx.loadOrCreateSigningSecret(deps.db, randomBytes(48).toString('base64url')));
  const { db, clock } = deps;
  const tokens = createTokenService({ db, secret, clock });
  if (deps.listen) await tokens.watchChanges(deps.listen);
  const cursors = new CursorCodec(secret);
  const jobs = createJobQueue({ db, clock });
  const activityTypes = createActivityTypeService({ db });
  const filters = createFilterService({ db, clock });
  const activities = createActivityService({ db, cursors, filters, publicUrl: deps.config.publicUrl });
  const objects = createObjectService({ db, cursors, filters });
  const ingestion = createIngestionService({ db, clock, activityTypes, citus: deps.citus === true });
  const organizationUpserts = createOrganizationUpsertService({ db, clock });
  const websiteVisitPushes = createWebsiteVisitPushService({ db, clock });
  const trackers = createTrackerService({ db, clock, publicUrl: deps.config.publicUrl, visits: websiteVisitPushes });
  if (deps.listen) await trackers.watchChanges(deps.listen);
  // Title seniority is the buying committees' classifier; the root hands it over, as buying committees read organizations, which read lead scores.
  const classify = createTitleClassifier();
  const contacts = createContactService({ db, clock, cursors, filters, activities, publicUrl: deps.config.publicUrl });
  const contactMerges = createContactMergeService({ db, clock });
  const organizations = createOrganizationReadService({ db, cursors, filters, clock, publicUrl: deps.config.publicUrl });
  const connectors = createConnectorService({
    db,
    clock,
    jobs,
    ingestion,
    deploymentSecret: secret,
    publicUrl: deps.config.publicUrl,
    allowPrivateFetch: deps.config.allowPrivateFetch ?? false,
    kinds: deps.connectorKinds,
    syncIntervalMs: deps.config.connectorSyncIntervalMs,
    log: deps.log,
  });
  const leadScoreCompute = createLeadScoreComputeService({ db, clock, jobs, seniorityOf: (title) => classify(title).seniority });
  const feeds = createFeedService({ db, clock, jobs, allowPrivateFetch: deps.config.allowPrivateFetch ?? false });
  // An erasure reaches what connectors keep of the person (their deliveries' payloads, the platform users they saw).
  const privacy = createPrivacyService({ db, clock, jobs, eraseProfiles: connectors.forgetPeople });
  // A connector's source is synced by its connector: data-available hands it over.
  const sourceImports = createSourceImportService({
    db,
    clock,
    jobs,
    ingestion,
    organizationUpserts,
    fileSourceRoot: deps.config.fileSourceRoot ?? null,
    delegate: connectors.dataAvailable,
  });
  const insights = createInsightsService({
    db,
    clock,
    jobs,
    llm: deps.config.llm ? createLlmClient(deps.config.llm) : null,
    intervalMs: deps.config.llm?.intervalMs ?? 0,
    log: deps.log,
  });
  // Every kind of job (src/jobs/job-kinds.ts) and the service that runs it: a kind without a handler here,
  // or a handler for another kind's payload, does not compile.
  jobs.handle({
    'privacy.erase': privacy.runErasure,
    'source.import': sourceImports.runImport,
    'lead_scores.recompute': leadScoreCompute.runRecompute,
    'feeds.fetch': feeds.runFetch,
    'connector.sync': connectors.runSync,
    'insights.generate': insights.runInsights,
  });
  return {
    db,
    clock,
    tokens,
    cursors,
    rateLimiter: createRateLimiter({ db, clock, config: deps.config.rateLimit }),
    probeCounter: createProbeCounter({ clock, config: deps.config.rateLimit }),
    readiness: createReadiness(),
    communities: createCommunityService({ db, tokens, clock }),
    appUsers: createAppUserService({ db, clock, secret, publicUrl: deps.config.publicUrl, tokens }),
    sources: createSourceService({ db, cursors, fileSourceRoot: deps.config.fileSourceRoot ?? null }),
    activityTypes,
    ingestion,
    organizationUpserts,
    organizations,
    contactLookup: createContactLookupService({ db, publicUrl: deps.config.publicUrl }),
    me: createMeService({ db, clock }),
    tags: createTagService({ db, cursors, clock }),
    locations: createLocationService({ db, cursors }),
    topics: createTopicService({ db, cursors }),
    jobTitles: createJobTitleService({ db, cursors }),
    industries: createIndustryService({ db, cursors }),
    techProducts: createTechProductService({ db, cursors }),
    companyUpdates: createCompanyUpdateService({ db, clock, cursors, filters }),
    buyingCommittees: createBuyingCommitteeService({ db }),
    segments: createSegmentService({ db, cursors, publicUrl: deps.config.publicUrl }),
    segmentWrites: createSegmentWriteService({ db, clock }),
    contactCustomFields: createContactCustomFieldService({ db }),
    mergeSuggestions: createMergeSuggestionService({ db, clock, cursors, jobs }),
    search: createSearchService({ db }),
    filters,
    activities,
    stats: createStatsService({ db, clock, jobs, filters, activityTypes }),
    contacts,
    contactMerges,
    customFields: createCustomFieldDefinitionService({ db }),
    customFieldAdmin: createCustomFieldAdminService({ db, clock }),
    leadScores: createLeadScoreService({ db }),
    leadScoreCompute,
    leadScoreAdmin: createLeadScoreAdminService({ db, clock, compute: leadScoreCompute, seniorities: SENIORITY_KEYS }),
    objectTypes: createObjectTypeService({ db }),
    objects,
    objectWrites: createObjectWriteService({ db, clock, objects }),
    objectTypeAdmin: createObjectTypeAdminService({ db, clock }),
    objectUpserts: createObjectUpsertService({ db, clock }),
    websiteVisits: createWebsiteVisitService({ db, cursors, filters }),
    websiteVisitPushes,
    trackers,
    prospector: createProspectorService({ db, cursors, filters }),
    prospectorImports: createProspectorImportService({ db, clock }),
    jobs,
    jobAdmin: createJobAdminService({ jobs, cursors }),
    metrics: createMetricsService({ jobs, ingestion, poolUse: deps.poolUse, engine: deps.engine, connectors: connectors.totals }),
    feeds,
    privacy,
    connectors,
    sourceImports,
    bulkUpdates: createBulkUpdateService({ db, clock }),
    audit: createAuditService({ db, clock, cursors }),
    webhooks: createWebhookService({
      db,
      clock,
      jobs,
      filters,
      // Payloads are the v2 representations, read as the v2 routes read them.
      representations: { contact: contacts.get, activity: activities.get, organization: organizations.get },
      allowPrivateAddresses: deps.config.allowPrivateFetch ?? false,
      timeoutMs: deps.config.webhookTimeoutMs,
      log: deps.log,
    }),
    researchPrompts: createResearchPromptAdminService({ db, clock }),
    insights,
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;

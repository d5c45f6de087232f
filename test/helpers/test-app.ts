import type { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { systemClock, type Clock } from '../../src/clock.ts';
import type { LlmConfig, RateLimitConfig } from '../../src/config/config.ts';
import type { Engine } from '../../src/db/database.ts';
import type { HearthApp } from '../../src/http/types.ts';
import { createServices, type Services } from '../../src/services.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import type { ConnectorKind } from '../../src/modules/connectors/index.ts';
import { serializeRequest } from '../../src/http/logging.ts';

export const TEST_PUBLIC_URL = 'http://hearth.test';

export interface TestApp {
  app: HearthApp;
  services: Services;
  db: TestDatabase;
  /** The bootstrapped community ("Default"), its "API" source, and a read/write/admin token. */
  communityId: number;
  sourceId: number;
  token: string;
  /** A new token for the community (default: the bootstrapped one), with the given scopes. */
  issueToken(scopes?: string[], communityId?: number): Promise<string>;
  get(url: string, token?: string | null): Promise<LightMyRequestResponse>;
  /** A request with a JSON body (as given, never coerced), with the default token unless another or none is given. */
  send(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload: unknown, token?: string | null): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  rateLimit?: Partial<RateLimitConfig>;
  /** How long one statement of a request may run (PostgreSQL); none by default. */
  statementTimeoutMs?: number;
  /** Let feeds reach the tests' local servers (HEARTH_ALLOW_PRIVATE_FETCH). */
  allowPrivateFetch?: boolean;
  /** A model endpoint for insights (test/helpers/fake-llm.ts); none by default. */
  llm?: LlmConfig;
  /** How long a webhook receiver may take to answer (HEARTH_WEBHOOK_TIMEOUT); 10 s by default. */
  webhookTimeoutMs?: number;
  /** The folder under which file sources may be made through the API (HEARTH_FILE_SOURCE_ROOT); none by default. */
  fileSourceRoot?: string;
  /** The platforms connectors may be made for (the server's own by default): tests give local stand-ins. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  connectorKinds?: ConnectorKind<any, any>[];
  /** The address the app names itself by (TEST_PUBLIC_URL by default); a browser test gives the one it listens on. */
  publicUrl?: string;
  /**
   * Where the app's log goes (every level, as `hearth serve` writes it: pino's JSON lines, its request serializer),
   * with background work logging through it as in `hearth serve`; no log by default.
   */
  logStream?: Writable;
}

/** The whole app on a fresh database of the given engine, driven through `app.inject`. */
export async function createTestApp(engine: Engine, options: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase(engine);
  let app: HearthApp | null = null;
  try {
    // Background work logs through the app's logger, made after the services (as src/main.ts does).
    const log = options.logStream
      ? {
          info: (details: object, message: string) => app?.log.info(details, message),
          warn: (details: object, message: string) => app?.log.warn(details, message),
        }
      : undefined;
    const services = await createServices({
      db: db.database.db,
      listen: db.database.listen,
      poolUse: db.database.poolUse,
      engine: db.database.engine,
      citus: db.database.citus,
      clock: options.clock ?? systemClock,
      connectorKinds: options.connectorKinds,
      log,
      config: {
        jwtSecret: null,
        publicUrl: options.publicUrl ?? TEST_PUBLIC_URL,
        rateLimit: {
          perToken: 1_000_000,
          perAddress: 1_000_000,
          trackerPerKey: 1_000_000,
          trackerPerAddress: 1_000_000,
          windowSeconds: 60,
          ...options.rateLimit,
        },
        allowPrivateFetch: options.allowPrivateFetch ?? false,
        llm: options.llm ?? null,
        webhookTimeoutMs: options.webhookTimeoutMs,
        fileSourceRoot: options.fileSourceRoot ?? null,
      },
    });
    const setup = await services.communities.init(cliActor());
    app = await buildApp({
      services,
      publicUrl: options.publicUrl ?? TEST_PUBLIC_URL,
      logger: options.logStream ? { level: 'trace', serializers: { req: serializeRequest }, stream: options.logStream } : false,
      statementTimeoutMs: options.statementTimeoutMs,
      cancelStatements: db.database.cancel,
    });
    const built = app;
    return {
      app: built,
      services,
      db,
      communityId: setup.communityId,
      sourceId: setup.sourceId,
      token: setup.token,
      async issueToken(scopes, communityId = setup.communityId) {
        return (await services.tokens.issue(cliWriter(communityId), { scopes, appUserId: await services.communities.adminOf(communityId) })).token;
      },
      get(url, token = setup.token) {
        return built.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
      },
      send(method, url, payload, token = setup.token) {
        return built.inject({
          method,
          url,
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          payload: JSON.stringify(payload),
        });
      },
      async close() {
        await built.close();
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

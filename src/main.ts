import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { ConfigError, type Config } from './config/config.ts';
import { databaseTarget, openDatabase, type Database } from './db/database.ts';
import { serializeRequest } from './http/logging.ts';
import type { HearthApp } from './http/types.ts';
import { createWorker, type Worker } from './jobs/worker.ts';
import { startMetricsServer, type MetricsServer } from './modules/metrics/index.ts';
import { cliActor } from './core/writer.ts';
import { tuneHeap } from './heap-tuning.ts';
import { createServices, type Services } from './services.ts';
import { listenForCommands, type CommandSocket } from './cli/command-socket.ts';
import { commandSocketPath } from './cli/socket-path.ts';

export interface RunningServer {
  app: HearthApp;
  url: string;
  /** Where `/metrics` is served without a token (HEARTH_METRICS_PORT), if anywhere. */
  metricsUrl: string | null;
  /** Stops accepting connections and the job worker, lets requests and the job in flight finish, then closes the database. */
  stop(): Promise<void>;
  /**
   * SIGTERM: `/readyz` answers 503 at once while requests are still served for `graceMs`, so that a load
   * balancer stops sending; then stop(). A later stop() (a second signal) skips what is left of the wait.
   */
  drain(graceMs: number, closing?: () => void): Promise<void>;
}

/** `hearth serve`: database, migrations, first-run bootstrap, HTTP. */
export async function serve(config: Config, out: (line: string) => void): Promise<RunningServer> {
  tuneHeap();
  const database = await openDatabase(databaseTarget(config, 'hearth serve'));
  let app: HearthApp | null = null;
  let metricsServer: MetricsServer | null = null;
  try {
    // Background work logs through the app's logger, made after the services.
    const log = {
      info: (details: object, message: string) => app?.log.info(details, message),
      warn: (details: object, message: string) => app?.log.warn(details, message),
    };
    const services = await createServices({
      db: database.db,
      listen: database.listen,
      poolUse: database.poolUse,
      engine: database.engine,
      citus: database.citus,
      clock: systemClock,
      config,
      log,
    });
    services.metrics.collectProcessMetrics();
    await announceBootstrap(services, config, out);
    app = await buildApp({
      services,
      publicUrl: config.publicUrl,
      logger: { level: config.logLevel, serializers: { req: serializeRequest } },
      statementTimeoutMs: config.statementTimeoutMs,
      cancelStatements: database.cancel,
      trustProxy: config.trustProxy,
    });
    await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
      throw new ConfigError(`port ${config.port} on ${config.host} is already in use: stop what uses it, or set PORT`);
    });
    // Up before the line that says the server is serving, which scripts and tests wait for.
    if (config.metrics) {
      metricsServer = await startMetricsServer(services.metrics, {
        ...config.metrics,
        onError: (error) => app?.log.warn({ err: error }, 'could not read the metrics'),
      }).catch((error: unknown) => {
        if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
        throw new ConfigError(`port ${config.metrics!.port} on ${config.metrics!.host} is already in use: stop what uses it, or set HEARTH_METRICS_PORT`);
      });
    }
    // The embedded database is this process's alone: other `hearth` commands run here, through a socket,
    // listening before the server says it serves.
    let commands: CommandSocket | null = null;
    if (!database.shared) {
      const warn = (message: string) => app?.log.warn(message);
      commands = await listenForCommands(commandSocketPath(config.dataDir), { services, database, warn }).catch((error: unknown) => {
        warn(`hearth commands cannot reach this server (they will be refused while it runs): ${(error as Error).message}`);
        return null;
      });
    }
    out(`Hearth is serving ${config.publicUrl} on ${database.engine === 'postgres' ? 'PostgreSQL' : `the embedded database in ${config.dataDir}`}.`);
    out(`API reference: ${config.publicUrl}/docs`);
    if (metricsServer) out(`Metrics (Prometheus, every community, no token): ${metricsServer.url}/metrics`);
    const worker = createWorker({
      db: database.db,
      clock: systemClock,
      queue: services.jobs,
      log: app.log,
      leaseMs: config.jobLeaseMs,
      exclusive: !database.shared,
    });
    worker.start();
    // With a model endpoint, look for contacts and organizations whose insights are due (docs/insights.md).
    services.insights.startSchedule((error) => app?.log.warn({ err: error }, 'could not look for due insights'));
    // Other processes and `hearth ingestion` read this process's backlog from the database.
    services.ingestion.startReporting((error) => app?.log.warn({ err: error }, 'could not report the ingestion backlog'));
    const metricsClose = metricsServer ? metricsServer.close : async () => {};
    const withdraw = async () => {
      await commands?.close().catch(() => undefined);
      await services.insights.stopSchedule().catch(() => undefined);
      await services.ingestion.stopReporting().catch(() => undefined);
      await metricsClose();
    };
    const stop = stopper(app, worker, database, withdraw);
    let endGrace: (() => void) | null = null;
    return {
      app,
      url: config.publicUrl,
      metricsUrl: metricsServer?.url ?? null,
      stop: () => {
        endGrace?.();
        return stop();
      },
      async drain(graceMs, closing) {
        services.readiness.drain();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          endGrace = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        closing?.();
        await stop();
      },
    };
  } catch (error) {
    await metricsServer?.close();
    await app?.close();
    await database.close();
    throw error;
  }
}

function stopper(app: HearthApp, worker: Worker, database: Database, withdraw: () => Promise<void>) {
  let stopping: Promise<void> | null = null;
  return () =>
    (stopping ??= (async () => {
      // The worker finishes (or gives back) the job it is running; the database closes after both.
      await Promise.all([app.close(), worker.stop()]);
      await withdraw();
      await database.close();
    })());
}

/**
 * How long the token the first run prints works. The banner goes wherever stdout goes, which for a
 * container is its logs, kept and shipped elsewhere: the token it shows expires like its sign-in link,
 * and the banner says how to make one that lasts.
 */
const FIRST_RUN_TOKEN_SECONDS = 24 * 3600;

/**
 * On a database without a community, make one and print, once, how to call the service. Of several
 * processes starting together on one empty database, only the one that made the community prints.
 */
async function announceBootstrap(services: Services, config: Config, out: (line: string) => void) {
  const actor = cliActor();
  const bootstrap = await services.communities.bootstrap(actor);
  if (!bootstrap.created) return;
  const setup = { ...bootstrap, ...(await services.communities.issueAdminToken(bootstrap, actor, FIRST_RUN_TOKEN_SECONDS)) };
  const link = await services.appUsers.firstRunLink(bootstrap.communityId, bootstrap.adminUserId);
  out('');
  out('First run: created the community "Default", an admin user, the source "API" and an API token.');
  out(`The token and the sign-in link are shown once and expire in ${FIRST_RUN_TOKEN_SECONDS / 3600} hours (logs may keep them). A token`);
  out("that lasts: `npx hearth token create --scopes read,write,admin --name NAME`, or the console's API tokens.");
  out('');
  out(`  Console:   ${link.url}`);
  out('             (signs the admin in once, within 24 hours; then choose a password)');
  out(`  Token:     ${setup.token}`);
  out(`  Source ID: ${setup.sourceId}`);
  out(`  Docs:      ${config.publicUrl}/docs`);
  out('');
  out('Try it:');
  out(`  curl -H "Authorization: Bearer ${setup.token}" ${config.publicUrl}/api/v2/me`);
  out('');
}

import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.ts';
import { conflict, HearthError, invalidParameters, notFound } from '../../core/errors.ts';
import { formatId, ID_PREFIXES, parseKey } from '../../core/ids.ts';
import type { ErrorObject } from 'ajv';
import type { TSchema } from 'typebox';
import { compileBodyValidator, describeValidation } from '../../core/validation.ts';
import type { Writer } from '../../core/writer.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { auditTx } from '../audit/index.ts';
import type { IngestionService } from '../ingestion/index.ts';
import { sourceTx } from '../sources/index.ts';
import type { ConnectorKind, Headers } from './connector-kind.ts';
import { CONNECTOR_KINDS } from './connector-kinds.ts';
import { deriveSecretsKey, openSecrets, redactSecrets, sealSecrets, SecretsUnreadable } from './connector-secrets.ts';
import { CONNECTOR_SYNC_JOB, createConnectorSync, type SyncPayload } from './connector-sync.ts';
import * as connectors from './connector.repository.ts';
import type { ConnectorRow, ConnectorState } from './connector.repository.ts';
import { platformAccess } from './platform-access.ts';

/** How often each connector is synced for what its webhooks may have missed (HEARTH_CONNECTOR_SYNC_INTERVAL). */
export const DEFAULT_SYNC_INTERVAL_MS = 15 * 60_000;
/** A connector test's requests are given this long in all. */
const TEST_TIMEOUT_MS = 30_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKind = ConnectorKind<any, any>;

export interface ConnectorDeps {
  db: Kysely<DB>;
  clock: Clock;
  jobs: JobQueue;
  ingestion: IngestionService;
  /** The deployment secret (signing tokens and cursors): the secrets' key is derived from it. */
  deploymentSecret: string;
  publicUrl: string;
  allowPrivateFetch: boolean;
  /** The platforms (CONNECTOR_KINDS by default; tests add stand-ins). */
  kinds?: AnyKind[];
  syncIntervalMs?: number;
  log?: { warn(details: object, message: string): void };
}

export interface NewConnector {
  kind: string;
  name?: string;
  settings: unknown;
  secrets: unknown;
}

export interface ConnectorChanges {
  name?: string;
  settings?: unknown;
  secrets?: unknown;
}

/** One connector's figures for the metrics. */
export interface ConnectorTotals {
  communityId: number;
  sourceId: number;
  kind: string;
  state: string;
  waitingUntil: Date | null;
  /** The last delivery received. */
  lastEventAt: Date | null;
  /** The connector's streams, and those caught up once (the backfill's progress). */
  streams: number;
  streamsDone: number;
  /** Records stored (pushes accepted), deliveries received and processed, since the connector was made. */
  records: number;
  received: number;
  processed: number;
}

/** `sig_N` as admins name a connector (its source); a 400 for anything else. */
export function parseConnectorId(value: string): number {
  const prefix = ID_PREFIXES.provider;
  const id = value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
  if (id === null)
    throw new HearthError('invalid_connector_id', `"${value}" is not a valid connector ID (expected sig_<number>, its source's ID)`, { invalidIds: [value] });
  return id;
}

const secretsOf = (secrets: unknown): Record<string, unknown> => (secrets !== null && typeof secrets === 'object' ? (secrets as Record<string, unknown>) : {});

const RECEIVER_KEY = /^rk_([0-9]{1,16})_[A-Za-z0-9_-]{32}$/;

/** A receiver's request: stored (or a redelivery), answered by the kind itself (a handshake), or refused. */
export type Received = { ok: true; duplicate: boolean } | { ok: true; answer: Record<string, string> } | { ok: false; reason: string };

/**
 * Connectors: a source fed by a platform. This service holds the admin's operations (add, change, pause,
 * remove, test), the public receiver's one durable write, and, through connector-sync.ts, the durable sync
 * job and the background steps that turn stored deliveries into pushes and start periodic syncs.
 */
/** How long a receiver's connector is kept in memory, and how many are. */
const RECEIVER_CACHE_MS = 5_000;
const MAX_KEPT_RECEIVERS = 10_000;

export function createConnectorService(deps: ConnectorDeps) {
  const { db, clock, jobs } = deps;
  const kinds = new Map((deps.kinds ?? CONNECTOR_KINDS).map((kind) => [kind.kind, kind]));
  const key = deriveSecretsKey(deps.deploymentSecret);
  const settingsCheckers = new Map([...kinds.values()].map((kind) => [kind.kind, checkerOf(kind.settingsSchema, 'settings')]));
  const secretsCheckers = new Map([...kinds.values()].map((kind) => [kind.kind, checkerOf(kind.secretsSchema, 'secrets')]));

  // The kinds' cache lives as long as this service, not the module: two servers in one process keep their own.
  const platformCache = new Map<string, unknown>();
  const accessFor = (signal: AbortSignal) =>
    platformAccess({ allowPrivateAddresses: deps.allowPrivateFetch, signal, now: () => clock.now(), cache: platformCache });
  const sync = createConnectorSync({ ...deps, kinds, key, access: accessFor, syncIntervalMs: deps.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS });

  function kindOf(name: unknown): AnyKind {
    const kind = typeof name === 'string' ? kinds.get(name) : undefined;
    if (!kind) {
      const known = [...kinds.keys()];
      throw invalidParameters(
        `body field "kind" must be a connector kind${known.length ? ` (${known.join(', ')})` : ' (this server knows none)'}; got ${JSON.stringify(name)}`,
      );
    }
    return kind;
  }

  function checkSettings(kind: AnyKind, settings: unknown): JsonValue {
    if (settings === undefined) throw invalidParameters('body field "settings" is required');
    settingsCheckers.get(kind.kind)!(settings);
    return settings as JsonValue;
  }

  /** Secrets are checked whole (after a rotation's merge); the message names fields, never values. */
  function checkSecrets(kind: AnyKind, secrets: unknown): Record<string, unknown> {
    if (secrets === null || typeof secrets !== 'object' || Array.isArray(secrets))
      throw invalidParameters('body field "secrets" must be an object of the secrets by name');
    secretsCheckers.get(kind.kind)!(secrets);
    return secrets as Record<string, unknown>;
  }

  /**
   * The connector of a receiver key, read again at most every RECEIVER_CACHE_MS: a platform sends many
   * deliveries a second, and each would otherwise read the same row. A change made through this process drops
   * what is kept at once (a rotated webhook secret is checked from the next delivery); one made through
   * another process is seen within those seconds. Keys that name no connector are not kept.
   */
  const receivers = new Map<string, { until: number; connector: ConnectorRow }>();
  async function receiverConnector(communityId: number, receiverKey: string): Promise<ConnectorRow | undefined> {
    // The cache's own age, on the process's clock: not a time of the data.
    const now = Date.now();
    const kept = receivers.get(receiverKey);
    if (kept && kept.until > now && kept.connector.communityId === communityId) return kept.connector;
    const connector = await connectors.findConnectorByKey(db, communityId, receiverKey);
    if (!connector) {
      receivers.delete(receiverKey);
      return undefined;
    }
    if (receivers.size >= MAX_KEPT_RECEIVERS) receivers.clear();
    receivers.set(receiverKey, { until: now + RECEIVER_CACHE_MS, connector });
    return connector;
  }

  async function connectorOf(communityId: number, sourceId: number): Promise<ConnectorRow> {
    const connector = await connectors.findConnector(db, communityId, sourceId);
    if (!connector) throw notFound('connector_not_found', `no connector ${formatId('provider', sourceId)}`);
    return connector;
  }

  /** A connector as answers show it; the admin list reads every connector's streams and counts at once and hands them over. */
  async function present(connector: ConnectorRow, read?: { counts: { deliveries: number; records: number }; streams: connectors.StreamRow[] }) {
    const streams = read?.streams ?? (await connectors.listStreams(db, connector.communityId, connector.sourceId));
    const lastDay = read?.counts ?? (await connectors.lastDayCounts(db, connector.communityId, clock.now(), connector.sourceId)).get(connector.sourceId);
    return {
      id: formatId('provider', connector.sourceId),
      sourceId: connector.sourceId,
      kind: connector.kind,
      name: connector.name,
      settings: connector.settings,
      secrets: [...connector.secretNames].sort(),
      // A platform without webhooks has no receiver (its key is still kept: a kind may gain one).
      receiverUrl: kinds.get(connector.kind)?.receiver ? `${deps.publicUrl}/api/v2/receivers/${connector.kind}/${connector.receiverKey}` : null,
      state: connector.state,
      reason: connector.reason,
      waitingUntil: connector.waitingUntil?.toISOString() ?? null,
      streams: streams.map((stream) => ({
        stream: stream.stream,
        done: stream.done,
        records: Number(stream.records),
        total: stream.total === null ? null : Number(stream.total),
        updatedAt: stream.updatedAt.toISOString(),
      })),
      lastEventAt: connector.lastEventAt?.toISOString() ?? null,
      lastSyncAt: connector.lastSyncAt?.toISOString() ?? null,
      last24h: lastDay ?? { deliveries: 0, records: 0 },
      createdAt: connector.createdAt.toISOString(),
    };
  }

  /** A free source name: the given one (409 when taken), else the platform's, numbered when taken ("GitHub 2"). */
  async function nameFor(communityId: number, kind: AnyKind, given: string | undefined): Promise<string> {
    if (given !== undefined) {
      const name = given.trim();
      if (!name) throw invalidParameters('body field "name" must not be empty');
      if (name.length > 200) throw invalidParameters('body field "name" is at most 200 characters');
      if (await sourceTx.findSourceByName(db, communityId, name)) throw conflict(`a source named "${name}" already exists`);
      return name;
    }
    for (let n = 1; ; n++) {
      const name = n === 1 ? kind.platformName : `${kind.platformName} ${n}`;
      if (!(await sourceTx.findSourceByName(db, communityId, name))) return name;
    }
  }

  /** The state a connector goes back to when it may run again: backfilling until every stream was caught up once. */
  async function runningState(communityId: number, sourceId: number): Promise<ConnectorState> {
    const streams = await connectors.listStreams(db, communityId, sourceId);
    return streams.length > 0 && streams.every((stream) => stream.done) ? 'active' : 'backfilling';
  }

  async function enqueueSync(executor: Kysely<DB>, communityId: number, sourceId: number) {
    const payload: SyncPayload = { sourceId };
    return jobs.enqueueOnce(executor, { communityId, kind: CONNECTOR_SYNC_JOB, payload: { ...payload }, maxAttempts: 8 });
  }

  async function tryKind(kind: AnyKind, settings: unknown, secrets: unknown): Promise<{ ok: boolean; message: string }> {
    const stop = AbortSignal.timeout(TEST_TIMEOUT_MS);
    try {
      const message = await kind.test(settings, secrets, accessFor(stop));
      return { ok: true, message: redactSecrets(message, secretsOf(secrets)) };
    } catch (error) {
      // What the platform answered may echo the credential.
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, message: redactSecrets(message, secretsOf(secrets)) };
    }
  }

  const service = {
    kinds(): {
      kind: string;
      platformName: string;
      settingsSchema: unknown;
      secretsSchema: unknown;
      receives: boolean;
      platformIssuesWebhookSecret: boolean;
    }[] {
      return [...kinds.values()].map((kind) => ({
        kind: kind.kind,
        platformName: kind.platformName,
        settingsSchema: kind.settingsSchema,
        secretsSchema: kind.secretsSchema,
        receives: kind.receiver !== undefined,
        platformIssuesWebhookSecret: kind.receiver?.platformIssuesWebhookSecret ?? false,
      }));
    },

    async list(communityId: number) {
      const rows = await connectors.listConnectors(db, communityId);
      const counts = await connectors.lastDayCounts(db, communityId, clock.now());
      const streams = await connectors.listCommunityStreams(db, communityId);
      return Promise.all(
        rows.map((row) => present(row, { counts: counts.get(row.sourceId) ?? { deliveries: 0, records: 0 }, streams: streams.get(row.sourceId) ?? [] })),
      );
    },

    async get(communityId: number, sourceId: number) {
      return present(await connectorOf(communityId, sourceId));
    },

    /** Makes the source and its connector, and starts the first sync (the backfill). */
    async create(writer: Writer, input: NewConnector) {
      const kind = kindOf(input.kind);
      const settings = checkSettings(kind, input.settings);
      const secrets = checkSecrets(kind, input.secrets);
      const name = await nameFor(writer.communityId, kind, input.name);
      const now = clock.now();
      let sourceId: number;
      try {
        sourceId = await db.transaction().execute(async (trx) => {
          const source = await sourceTx.insertSource(trx, {
            communityId: writer.communityId,
            name,
            serviceName: kind.platformName,
            kind: kind.kind,
            path: null,
          });
          const receiverKey = `rk_${writer.communityId}_${randomBytes(24).toString('base64url')}`;
          await connectors.insertConnector(trx, {
            communityId: writer.communityId,
            sourceId: source.id,
            kind: kind.kind,
            receiverKey,
            settings,
            secrets: sealSecrets(key, writer.communityId, source.id, secrets),
            secretNames: Object.keys(secrets),
            now,
          });
          const job = await enqueueSync(trx, writer.communityId, source.id);
          await auditTx.recordWrite(trx, writer, {
            operation: 'connector.create',
            entityIds: [formatId('provider', source.id)],
            detail: { kind: kind.kind, name, settings, secrets: Object.keys(secrets).sort(), jobId: job.id },
          });
          return source.id;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`a source named "${name}" already exists`);
        throw error;
      }
      return present(await connectorOf(writer.communityId, sourceId));
    },

    /**
     * Renames, changes settings, or sets secrets by name (a rotation: the others are kept). New secrets on a
     * failed connector let it run again: it resumes.
     */
    async update(writer: Writer, sourceId: number, changes: ConnectorChanges) {
      const current = await connectorOf(writer.communityId, sourceId);
      const kind = kindOf(current.kind);
      const settings = changes.settings === undefined ? undefined : checkSettings(kind, changes.settings);
      let sealed: { secrets: string; names: string[] } | undefined;
      if (changes.secrets !== undefined) {
        if (changes.secrets === null || typeof changes.secrets !== 'object' || Array.isArray(changes.secrets)) {
          throw invalidParameters('body field "secrets" must be an object of the secrets by name');
        }
        let kept: Record<string, unknown> = {};
        if (current.secrets) {
          try {
            kept = openSecrets(key, writer.communityId, sourceId, current.secrets);
          } catch (error) {
            // Unreadable: what is given now must be the whole set.
            if (!(error instanceof SecretsUnreadable)) throw error;
          }
        }
        const merged = checkSecrets(kind, { ...kept, ...(changes.secrets as Record<string, unknown>) });
        sealed = { secrets: sealSecrets(key, writer.communityId, sourceId, merged), names: Object.keys(merged) };
      }
      const name = changes.name === undefined ? undefined : changes.name.trim();
      if (name !== undefined && !name) throw invalidParameters('body field "name" must not be empty');
      if (name !== undefined && name.length > 200) throw invalidParameters('body field "name" is at most 200 characters');
      const now = clock.now();
      const resume = sealed !== undefined && current.state === 'failed';
      const resumeAs = resume ? await runningState(writer.communityId, sourceId) : undefined;
      try {
        await db.transaction().execute(async (trx) => {
          if (name !== undefined && name !== current.name) {
            await trx.updateTable('sources').set({ name }).where('community_id', '=', writer.communityId).where('id', '=', sourceId).execute();
          }
          await connectors.updateConnector(
            trx,
            writer.communityId,
            sourceId,
            {
              ...(settings !== undefined ? { settings } : {}),
              ...(sealed ? { secrets: sealed.secrets, secretNames: sealed.names } : {}),
              ...(resumeAs ? { state: resumeAs, reason: null, waitingUntil: null } : {}),
            },
            now,
          );
          const job = resume || settings !== undefined ? await enqueueSync(trx, writer.communityId, sourceId) : null;
          await auditTx.recordWrite(trx, writer, {
            operation: 'connector.update',
            entityIds: [formatId('provider', sourceId)],
            detail: {
              ...(name !== undefined ? { name } : {}),
              ...(settings !== undefined ? { settings } : {}),
              ...(changes.secrets !== undefined ? { secretsSet: Object.keys(changes.secrets as object).sort() } : {}),
              ...(resume ? { resumed: true } : {}),
              ...(job ? { jobId: job.id } : {}),
            },
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(`a source named "${name}" already exists`);
        throw error;
      }
      receivers.clear();
      return present(await connectorOf(writer.communityId, sourceId));
    },

    /** Removes the connector (its checkpoints and stored deliveries with it); the source and its data stay. */
    async remove(writer: Writer, sourceId: number) {
      const shown = await present(await connectorOf(writer.communityId, sourceId));
      await db.transaction().execute(async (trx) => {
        if (!(await connectors.deleteConnector(trx, writer.communityId, sourceId)))
          throw notFound('connector_not_found', `no connector ${formatId('provider', sourceId)}`);
        await auditTx.recordWrite(trx, writer, {
          operation: 'connector.remove',
          entityIds: [formatId('provider', sourceId)],
          detail: { kind: shown.kind, name: shown.name },
        });
      });
      receivers.clear();
      return shown;
    },

    /** Starts a sync now (or answers the one queued or running). */
    async syncNow(writer: Writer, sourceId: number): Promise<{ jobId: number; created: boolean }> {
      const connector = await connectorOf(writer.communityId, sourceId);
      if (connector.state === 'paused') throw conflict(`connector ${formatId('provider', sourceId)} is paused: resume it first`);
      if (connector.state === 'failed')
        throw conflict(`connector ${formatId('provider', sourceId)} failed (${connector.reason ?? 'no reason'}): change its secrets or resume it`);
      return db.transaction().execute(async (trx) => {
        const job = await enqueueSync(trx, writer.communityId, sourceId);
        await auditTx.recordWrite(trx, writer, {
          operation: 'connector.sync',
          entityIds: [formatId('provider', sourceId)],
          detail: { jobId: job.id, created: job.created },
        });
        return { jobId: job.id, created: job.created };
      });
    },

    /** Stops syncing (a running sync stops at its next page) and processing deliveries; deliveries are still stored. */
    async pause(writer: Writer, sourceId: number) {
      await connectorOf(writer.communityId, sourceId);
      await db.transaction().execute(async (trx) => {
        await connectors.updateConnector(trx, writer.communityId, sourceId, { state: 'paused', reason: null, waitingUntil: null }, clock.now());
        await auditTx.recordWrite(trx, writer, { operation: 'connector.pause', entityIds: [formatId('provider', sourceId)], detail: {} });
      });
      return present(await connectorOf(writer.communityId, sourceId));
    },

    /** Runs the connector again (paused, failed or waiting): a sync is started and stored deliveries are processed. */
    async resume(writer: Writer, sourceId: number) {
      await connectorOf(writer.communityId, sourceId);
      const state = await runningState(writer.communityId, sourceId);
      await db.transaction().execute(async (trx) => {
        await connectors.updateConnector(trx, writer.communityId, sourceId, { state, reason: null, waitingUntil: null }, clock.now());
        const job = await enqueueSync(trx, writer.communityId, sourceId);
        await auditTx.recordWrite(trx, writer, { operation: 'connector.resume', entityIds: [formatId('provider', sourceId)], detail: { jobId: job.id } });
      });
      sync.nudge();
      return present(await connectorOf(writer.communityId, sourceId));
    },

    /** Tries a kind's credential and settings before a connector is made; nothing is stored. */
    async test(writer: Writer, input: { kind: string; settings: unknown; secrets: unknown }) {
      const kind = kindOf(input.kind);
      const settings = checkSettings(kind, input.settings);
      const secrets = checkSecrets(kind, input.secrets);
      const result = await tryKind(kind, settings, secrets);
      await auditTx.recordWrite(db, writer, { operation: 'connector.test', entityIds: [], detail: { kind: kind.kind, ok: result.ok } });
      return result;
    },

    /** Tries a connector's stored credential and settings. */
    async testExisting(writer: Writer, sourceId: number) {
      const connector = await connectorOf(writer.communityId, sourceId);
      const kind = kindOf(connector.kind);
      let result: { ok: boolean; message: string };
      try {
        const secrets = connector.secrets ? openSecrets(key, writer.communityId, sourceId, connector.secrets) : {};
        result = await tryKind(kind, connector.settings, secrets);
      } catch (error) {
        if (!(error instanceof SecretsUnreadable)) throw error;
        result = { ok: false, message: error.message };
      }
      await auditTx.recordWrite(db, writer, {
        operation: 'connector.test',
        entityIds: [formatId('provider', sourceId)],
        detail: { kind: kind.kind, ok: result.ok },
      });
      return result;
    },

    /**
     * A receiver request: the connector found by its key, the signature checked over the raw bytes before
     * anything is parsed, then one durable write. Deliveries of a paused connector are stored too (processed
     * when it resumes).
     */
    async receive(kindName: string, receiverKey: string, raw: Buffer, headers: Headers): Promise<Received> {
      const kind = kinds.get(kindName);
      const receiver = kind?.receiver;
      const match = RECEIVER_KEY.exec(receiverKey);
      const communityId = match ? parseKey(match[1]!) : null;
      const connector = kind && communityId !== null ? await receiverConnector(communityId, receiverKey) : undefined;
      if (!kind || !receiver || !connector || connector.kind !== kind.kind)
        throw notFound('receiver_not_found', `no ${kind ? `${kind.platformName} ` : ''}receiver at this address`);
      let secrets: Record<string, unknown>;
      try {
        secrets = connector.secrets ? openSecrets(key, connector.communityId, connector.sourceId, connector.secrets) : {};
      } catch (error) {
        if (!(error instanceof SecretsUnreadable)) throw error;
        deps.log?.warn({ sourceId: connector.sourceId, communityId: connector.communityId }, error.message);
        return { ok: false, reason: 'the signature cannot be checked: the connector must be given its secrets again' };
      }
      // A signature header a kind cannot read is a bad signature, not a failure of the server.
      const verified = await receiver.verify(raw, headers, secrets, clock.now()).catch(() => false);
      if (!verified) return { ok: false, reason: "the signature is missing or does not match the connector's webhook secret" };
      const { text, body } = deliveryText(raw, headers);
      const event = receiver.eventOf(headers, body);
      if (event === null) throw invalidParameters(`not a ${kind.platformName} delivery: it does not say which event it is`);
      // A handshake the platform expects an answer to (Slack's URL verification) is answered, not stored.
      const answer = receiver.answer?.({ headers, event, body }) ?? null;
      if (answer) return { ok: true, answer };
      const deliveryId = receiver.deliveryId(headers, body) ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`;
      const now = clock.now();
      // The one durable write, a statement of its own: the platform's answer waits for nothing else (the
      // counts and the connector's last event, rows every delivery writes, are written after it, off the answer).
      const stored = await connectors
        .insertDelivery(db, {
          communityId: connector.communityId,
          sourceId: connector.sourceId,
          deliveryId,
          event,
          headers: keptHeaders(headers),
          payload: text,
          now,
        })
        .catch((error: unknown) => {
          // Removed by another process since this one looked it up (receiverConnector's few seconds).
          if (isForeignKeyViolation(error)) throw notFound('receiver_not_found', `no ${kind.platformName} receiver at this address`);
          throw error;
        });
      if (stored) sync.received(connector.communityId, connector.sourceId, now);
      return { ok: true, duplicate: !stored };
    },

    /** POST /api/v2/data-available for a connector's source: a sync, enqueued once; null for another source. */
    async dataAvailable(writer: Writer, sourceId: number): Promise<{ jobId: number; created: boolean } | null> {
      if (!(await connectors.isConnectorSource(db, writer.communityId, sourceId))) return null;
      return service.syncNow(writer, sourceId);
    },

    /** Runs the jobs of kind `connector.sync` (the root hands it to the queue). */
    runSync: sync.runSync,
    /** An erasure's part in connectors (privacy's ProfileEraser): what they keep of people erased on request. */
    forgetPeople: sync.forgetPeople,
    /** Processes stored deliveries now (the background step does it too; tests call it). */
    processDeliveries: sync.processDeliveries,
    /** Enqueues the syncs that are due (the background step does it too). */
    enqueueDueSyncs: sync.enqueueDueSyncs,
    /** Waits for the deliveries a receive set going in this process. */
    settled: sync.settled,

    /** For the metrics: connectors by kind and state, deliveries and records. */
    totals(communityId: number | null): Promise<ConnectorTotals[]> {
      return connectors.connectorTotals(db, communityId);
    },
  };
  return service;
}

export type ConnectorService = ReturnType<typeof createConnectorService>;

/** A kind's schema errors, named from the body (`secrets.token`); messages name fields and the schema's rules, never values. */
/**
 * The check of a kind's settings or secrets. A schema of several forms (GitHub's token, or its App's ID and
 * key) is answered for the form the value comes nearest to (the fewest complaints): the validator's own
 * answer lists every form's complaints at once, naming fields the caller never meant to give.
 */
function checkerOf(schema: TSchema, field: 'settings' | 'secrets'): (value: unknown) => void {
  const { anyOf, description } = schema as { anyOf?: TSchema[]; description?: string };
  const forms = anyOf ?? [schema];
  const validators = forms.map((form) => compileBodyValidator(form));
  const which = forms.length > 1 && description ? ` (${field}: ${description})` : '';
  return (value) => {
    let nearest: ErrorObject[] | null = null;
    for (const validate of validators) {
      if (validate(value)) return;
      const errors = validate.errors ?? [];
      if (!nearest || errors.length < nearest.length) nearest = [...errors];
    }
    throw invalidParameters(describeValidation(under(field, nearest ?? []), 'body field') + which);
  };
}

function under(field: string, errors: ErrorObject[]): ErrorObject[] {
  return errors.map((error) => ({ ...error, instancePath: `/${field}${error.instancePath}` }));
}

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * The JSON of a verified delivery. GitHub's webhooks may be set to send a form (`payload=<JSON>`, content type
 * application/x-www-form-urlencoded): its signature is over the form's bytes, checked before this; the JSON is
 * its `payload` field.
 */
function deliveryText(raw: Buffer, headers: Headers): { text: string; body: unknown } {
  const type = headers['content-type'];
  let text = raw.toString('utf8');
  if (typeof type === 'string' && FORM.test(type)) {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null)
      throw invalidParameters('a form body must carry the delivery in its "payload" field; or set the webhook\'s content type to application/json');
    text = payload;
  }
  try {
    return { text, body: JSON.parse(text) as unknown };
  } catch {
    throw invalidParameters("the body is not JSON (set the webhook's content type to application/json)");
  }
}

/** What is kept of a delivery's headers: the platform's, never credentials a proxy may have added. */
function keptHeaders(headers: Headers): JsonValue {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'authorization' || name === 'cookie' || name === 'proxy-authorization') continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

import { isIP } from 'node:net';
import path from 'node:path';
import { describeMs, durationMs, DURATION_SYNTAX, type DurationUnit } from '../core/durations.ts';

/** Everything Hearth reads from its environment, parsed once at start. */
export interface Config {
  /** PostgreSQL connection string; when absent Hearth uses the embedded database in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  port: number;
  host: string;
  /** Base of the `url` fields and of the addresses Hearth prints. */
  publicUrl: string;
  /** Secret for signing API tokens; when absent a key is generated once and kept in the database. */
  jwtSecret: string | null;
  logLevel: string;
  rateLimit: RateLimitConfig;
  /** How long one statement of an HTTP request may run (ms; 0: no limit). Jobs and the CLI have none. */
  statementTimeoutMs: number;
  /**
   * Whether feeds (and other requests Hearth makes to addresses its users give) may reach private,
   * loopback and link-local addresses: off unless the operator turns it on (HEARTH_ALLOW_PRIVATE_FETCH).
   */
  allowPrivateFetch: boolean;
  /**
   * The folder under which file sources made over the API must lie (HEARTH_FILE_SOURCE_ROOT); null: file
   * sources are made with the CLI only. The CLI, run by the operator, may name any folder.
   */
  fileSourceRoot: string | null;
  /**
   * How long a job claimed by a worker stays that worker's without news (ms; renewed every third of it
   * while the job runs). On PostgreSQL, a job whose process died is claimed again once it runs out
   * (HEARTH_JOB_LEASE, seconds).
   */
  jobLeaseMs: number;
  /**
   * How long a webhook receiver may take to answer one delivery (ms; HEARTH_WEBHOOK_TIMEOUT, seconds). A
   * delivery being sent is held for twice that: should its process die, it is sent again after it.
   */
  webhookTimeoutMs: number;
  /** How often every connector is synced for what its webhooks may have missed (ms; HEARTH_CONNECTOR_SYNC_INTERVAL, minutes). */
  connectorSyncIntervalMs: number;
  /**
   * PostgreSQL: seconds after which a pooled connection is closed and replaced, so that no session keeps its
   * plans and caches for the life of the process (HEARTH_DB_CONNECTION_LIFETIME; 0 keeps them).
   */
  connectionLifetimeSeconds: number;
  /**
   * Where `/metrics` is served for every community without a token (HEARTH_METRICS_PORT, _HOST); null: only
   * on the API port, to admin tokens (docs/operations.md).
   */
  metrics: { port: number; host: string } | null;
  /**
   * After SIGTERM, how long `/readyz` answers 503 while requests are still served, so that a load balancer
   * stops sending before the server closes (HEARTH_SHUTDOWN_GRACE; ms).
   */
  shutdownGraceMs: number;
  /** The OpenAI-compatible endpoint that writes insights (docs/insights.md); null: the deterministic text only. */
  llm: LlmConfig | null;
  /** Whose X-Forwarded-For names the client (HEARTH_TRUST_PROXY); off: the connection's address, always. */
  trustProxy: TrustProxy;
}

/**
 * Which proxies in front of Hearth are believed when they name the client in X-Forwarded-For: none (the
 * client is the connection's peer), the last `hops` of the chain whoever sends it, or those whose
 * addresses are in `addresses` (IP addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

/** An OpenAI-compatible chat completions endpoint (HEARTH_LLM_*). */
export interface LlmConfig {
  /** The API's base URL (`…/v1`); Hearth posts to `<url>/chat/completions`. */
  url: string;
  /** Sent as `Authorization: Bearer <key>`; null: no header (a local server). */
  key: string | null;
  model: string;
  /** How long one completion may take before it counts as failed (ms). */
  timeoutMs: number;
  /** Completions in flight at once, per process. */
  concurrency: number;
  /** How often a serving process looks for contacts and organizations to write again (ms; 0: only on request). */
  intervalMs: number;
}

export interface RateLimitConfig {
  /** Requests per window for one token. */
  perToken: number;
  /** Requests per window for one client address without a valid token. */
  perAddress: number;
  windowSeconds: number;
  /** Website tracker requests per window for one tracker key (default 6,000). */
  trackerPerKey?: number;
  /** Website tracker requests per window for one client address (default 120). */
  trackerPerAddress?: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${raw}"`);
  }
  return value;
}

/**
 * A length of time, in milliseconds: `30s`, `15m`, `1h`, `7d`, ISO 8601 (`PT1H`), or a bare number in the
 * variable's historical unit (`bareUnit`), so that settings written before keep their meaning.
 */
function duration(env: Env, name: string, fallbackMs: number, bareUnit: DurationUnit, minMs: number, maxMs: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallbackMs;
  const value = durationMs(raw, bareUnit);
  if (value === null || value < minMs || value > maxMs) {
    throw new ConfigError(
      `${name} must be ${DURATION_SYNTAX} (a bare number is ${bareUnit === 'ms' ? 'milliseconds' : bareUnit === 's' ? 'seconds' : 'minutes'}), from ${describeMs(minMs)} to ${describeMs(maxMs)}; got "${raw}"`,
    );
  }
  return value;
}

function text(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 1, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  }
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  const publicUrl = (text(env, 'HEARTH_PUBLIC_URL') ?? `http://${displayHost(host)}:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`HEARTH_PUBLIC_URL must be an absolute URL; got "${publicUrl}"`);
  }
  const jwtSecret = text(env, 'HEARTH_JWT_SECRET');
  if (jwtSecret !== null && jwtSecret.length < 32) {
    throw new ConfigError('HEARTH_JWT_SECRET must be at least 32 characters long');
  }
  return {
    databaseUrl,
    dataDir: path.resolve(text(env, 'HEARTH_DATA_DIR') ?? 'data'),
    port,
    host,
    publicUrl,
    jwtSecret,
    logLevel,
    rateLimit: {
      perToken: integer(env, 'HEARTH_RATE_LIMIT', 600, 1, 10_000_000),
      perAddress: integer(env, 'HEARTH_RATE_LIMIT_ANONYMOUS', 60, 1, 10_000_000),
      windowSeconds: Math.round(duration(env, 'HEARTH_RATE_LIMIT_WINDOW', 60_000, 's', 1000, 86_400_000) / 1000),
      trackerPerKey: integer(env, 'HEARTH_TRACKER_RATE_LIMIT', 6000, 1, 10_000_000),
      trackerPerAddress: integer(env, 'HEARTH_TRACKER_RATE_LIMIT_ADDRESS', 120, 1, 10_000_000),
    },
    statementTimeoutMs: duration(env, 'HEARTH_STATEMENT_TIMEOUT', 15_000, 'ms', 0, 86_400_000),
    allowPrivateFetch: flag(env, 'HEARTH_ALLOW_PRIVATE_FETCH'),
    fileSourceRoot: fileSourceRoot(env),
    jobLeaseMs: duration(env, 'HEARTH_JOB_LEASE', 300_000, 's', 1000, 86_400_000),
    webhookTimeoutMs: duration(env, 'HEARTH_WEBHOOK_TIMEOUT', 10_000, 's', 1000, 300_000),
    connectorSyncIntervalMs: duration(env, 'HEARTH_CONNECTOR_SYNC_INTERVAL', 900_000, 'm', 60_000, 604_800_000),
    connectionLifetimeSeconds: Math.round(duration(env, 'HEARTH_DB_CONNECTION_LIFETIME', 600_000, 's', 0, 604_800_000) / 1000),
    metrics: metricsConfig(env, host, port),
    shutdownGraceMs: duration(env, 'HEARTH_SHUTDOWN_GRACE', 10_000, 's', 0, 3_600_000),
    llm: llmConfig(env),
    trustProxy: trustProxyConfig(env),
  };
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_SYNTAX = 'a number of proxies (1 to 10) or a comma-separated list of their addresses (10.0.0.2, 10.0.0.0/8, fd00::/8, loopback)';

function trustProxyConfig(env: Env): TrustProxy {
  const raw = text(env, 'HEARTH_TRUST_PROXY');
  if (raw === null || ['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  if (/^[0-9]+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError(`HEARTH_TRUST_PROXY must be ${TRUST_PROXY_SYNTAX}; got "${raw}"`);
    return { hops };
  }
  if (['true', 'yes', 'on'].includes(raw.toLowerCase())) {
    throw new ConfigError(`HEARTH_TRUST_PROXY must be ${TRUST_PROXY_SYNTAX}: believing every sender would let any client name its own address; got "${raw}"`);
  }
  const addresses = raw.split(',').map((entry) => entry.trim());
  for (const entry of addresses) {
    if (!isProxyAddress(entry)) throw new ConfigError(`HEARTH_TRUST_PROXY must be ${TRUST_PROXY_SYNTAX}; "${entry}" is neither an address nor a range`);
  }
  return { addresses };
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function metricsConfig(env: Env, host: string, apiPort: number): Config['metrics'] {
  const raw = text(env, 'HEARTH_METRICS_PORT');
  const metricsHost = text(env, 'HEARTH_METRICS_HOST');
  if (raw === null) {
    if (metricsHost !== null) throw new ConfigError('HEARTH_METRICS_HOST needs HEARTH_METRICS_PORT, the port to serve /metrics on');
    return null;
  }
  const port = integer(env, 'HEARTH_METRICS_PORT', 0, 1, 65535);
  if (port === apiPort) throw new ConfigError(`HEARTH_METRICS_PORT must differ from PORT (${apiPort}): the API port serves /metrics to admin tokens already`);
  return { port, host: metricsHost ?? host };
}

function fileSourceRoot(env: Env): string | null {
  const raw = text(env, 'HEARTH_FILE_SOURCE_ROOT');
  if (raw === null) return null;
  const root = path.resolve(raw);
  // The root of the file system would let the API name every folder: that is what the setting prevents.
  if (path.dirname(root) === root) throw new ConfigError(`HEARTH_FILE_SOURCE_ROOT must be a folder below the root of the file system; got "${raw}"`);
  return root;
}

function llmConfig(env: Env): LlmConfig | null {
  const url = text(env, 'HEARTH_LLM_URL');
  const model = text(env, 'HEARTH_LLM_MODEL');
  const key = text(env, 'HEARTH_LLM_KEY');
  if (url === null) {
    if (model !== null || key !== null) throw new ConfigError('HEARTH_LLM_MODEL and HEARTH_LLM_KEY need HEARTH_LLM_URL, the endpoint to call');
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`HEARTH_LLM_URL must be an absolute http:// or https:// URL; got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`HEARTH_LLM_URL must be an http:// or https:// URL; got "${url}"`);
  if (model === null) throw new ConfigError('HEARTH_LLM_URL needs HEARTH_LLM_MODEL, the model to ask (as the endpoint names it)');
  return {
    url: url.replace(/\/+$/, ''),
    key,
    model,
    timeoutMs: duration(env, 'HEARTH_LLM_TIMEOUT', 60_000, 's', 1000, 3_600_000),
    concurrency: integer(env, 'HEARTH_LLM_CONCURRENCY', 4, 1, 64),
    intervalMs: duration(env, 'HEARTH_LLM_INTERVAL', 600_000, 's', 0, 604_800_000),
  };
}

function flag(env: Env, name: string): boolean {
  const value = text(env, name)?.toLowerCase();
  if (value === undefined || value === null || ['0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  throw new ConfigError(`${name} must be true or false; got "${value}"`);
}

/** A wildcard bind address is not something a client can call; print localhost instead. */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

import { createHash } from 'node:crypto';
import { DiscordAPIError, HTTPError, REST, RateLimitError, RequestMethod, type RateLimitData, type ResponseLike, type RouteLike } from '@discordjs/rest';
import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { DISCORD_API, type DiscordSecrets, type DiscordSettings } from './discord.schemas.ts';

/*
 * Requests go through @discordjs/rest, which knows Discord's rate limits ("Rate Limits",
 * https://discord.com/developers/docs/topics/rate-limits): it learns each route's bucket from the
 * X-RateLimit-* headers, holds a request until its bucket (or the 50-a-second global limit) has room, and
 * waits out a 429 as Retry-After says. Its requests are made by `access.fetch` (the outbound guard), and a
 * wait longer than a few seconds is not slept inside the job: it becomes the framework's RateLimitWait, so
 * the connector shows `waiting` with its time and the sync runs again then.
 *
 * One REST instance per sync run (per job signal) and credential: within a run it remembers the buckets, so a
 * bucket an answer said is spent is waited for (or handed to the framework) without spending a refused
 * request; the next run starts afresh, when the platform's time has passed.
 */

/** Waits up to this long are made inside the request (a bucket that resets within seconds); longer ones are the framework's. */
const IN_REQUEST_WAIT_MS = 5_000;
/** A 429 that says nothing of how long: a minute. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;
/** How long the job waits after a 5xx or an unreachable API: Discord is likely having an incident. */
const SERVER_ERROR_WAIT_MS = 60_000;
/** The REST client's own bound on a request; the outbound guard's (30 s) comes first. */
const REQUEST_TIMEOUT_MS = 60_000;

/** Discord answered an error that is not about the token or the rate (a channel not found, a permission missing). */
export class DiscordError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    readonly route: string,
    detail: string,
  ) {
    super(`Discord answered ${status}${code ? ` (code ${code})` : ''} for ${route}: ${detail}${hintOf(code)}`);
  }
}

/** The request could not be made or answered (a connection refused, a timeout): waited out like a 5xx. */
class Unreachable extends Error {}

/** Discord's JSON error codes ("Opcodes and Status Codes") that an admin can act on. */
function hintOf(code: number | null): string {
  if (code === 50001) return ': the bot cannot see it (add the bot to the server, and let it View Channel and Read Message History there)';
  if (code === 50013) return ': the bot lacks a permission there (View Channel, Read Message History)';
  if (code === 10003) return ': check the channel ID';
  if (code === 10004) return ': check the server ID, and that the bot was added to the server';
  return '';
}

export function apiBase(settings: Pick<DiscordSettings, 'apiUrl'>): string {
  return (settings.apiUrl ?? DISCORD_API).replace(/\/+$/, '');
}

/** What a wait the REST client met comes to: a bucket's reset, a sublimit, or Retry-After, whichever is longest. */
function waitOf(data: RateLimitData): number {
  return Math.max(data.timeToReset, data.retryAfter, data.sublimitTimeout);
}

function seconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}

/** A 429's wait, `Retry-After` (seconds) or the body's `retry_after` (seconds, with decimals) whichever is longer, and which limit it is. */
async function rateLimitOf(response: Response): Promise<{ wait: number | null; limit: string }> {
  const header = Number(response.headers.get('retry-after'));
  let body: { retry_after?: unknown; global?: unknown } = {};
  try {
    body = (await response.clone().json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the headers alone.
  }
  const waits = [header, Number(body.retry_after)].filter((value) => Number.isFinite(value) && value >= 0);
  const scope = response.headers.get('x-ratelimit-scope');
  const limit =
    body.global === true || response.headers.has('x-ratelimit-global') || scope === 'global'
      ? 'the global limit'
      : scope === 'shared'
        ? "the resource's shared limit"
        : "the route's limit";
  return { wait: waits.length > 0 ? Math.ceil(Math.max(...waits) * 1000) : null, limit };
}

/** `access.fetch`, with a long 429 turned into the framework's wait before the REST client would sleep on it. */
async function send(url: string, init: RequestInit, access: PlatformAccess): Promise<Response> {
  let response: Response;
  try {
    response = await access.fetch(url, init);
  } catch (error) {
    if (access.signal.aborted) throw error;
    throw new Unreachable(error instanceof Error ? error.message : String(error));
  }
  if (response.status === 429) {
    const { wait, limit } = await rateLimitOf(response);
    // The REST client times its retry by the header alone: without it, it would ask again at once.
    if (wait === null || wait > IN_REQUEST_WAIT_MS || !response.headers.has('retry-after')) {
      const ms = wait ?? DEFAULT_RATE_LIMIT_WAIT_MS;
      throw new RateLimitWait(new Date(access.now().getTime() + ms), `Discord asked to wait ${seconds(ms)} (429 on ${new URL(url).pathname}, ${limit})`);
    }
  }
  return response;
}

const clients = new WeakMap<AbortSignal, Map<string, REST>>();

function restFor(settings: DiscordSettings, secrets: DiscordSecrets, access: PlatformAccess): REST {
  let forRun = clients.get(access.signal);
  if (!forRun) clients.set(access.signal, (forRun = new Map()));
  // The token is part of the key only as a hash: the map lives as long as the run, in memory.
  const key = `${apiBase(settings)} ${createHash('sha256').update(secrets.botToken).digest('base64url')}`;
  let rest = forRun.get(key);
  if (!rest) {
    rest = new REST({
      api: apiBase(settings),
      // Nothing is retried in a loop: a 5xx or a timeout becomes a wait of the framework's.
      retries: 0,
      timeout: REQUEST_TIMEOUT_MS,
      // A run's instance is dropped with the run: no sweeping timers to outlive it.
      hashSweepInterval: 0,
      handlerSweepInterval: 0,
      rejectOnRateLimit: (data) => waitOf(data) > IN_REQUEST_WAIT_MS,
      makeRequest: (url, init) => send(url, init as RequestInit, access) as unknown as Promise<ResponseLike>,
    }).setToken(secrets.botToken);
    forRun.set(key, rest);
  }
  return rest;
}

/** An answer, and Discord's clock when it gave it (its `Date` header), for marks that must not depend on ours. */
export interface DiscordAnswer<T> {
  body: T;
  serverTime: number | null;
}

/**
 * A GET of the HTTP API (`route` is the path after the version, e.g. `/channels/123/messages`), with the
 * bot token. Throws RateLimitWait for long waits, a 5xx or an unreachable API; CredentialRejected for a 401;
 * DiscordError for any other error Discord answers.
 */
export async function discordGet<T>(
  route: string,
  query: Record<string, string | undefined>,
  settings: DiscordSettings,
  secrets: DiscordSecrets,
  access: PlatformAccess,
): Promise<DiscordAnswer<T>> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
  // The REST client listens on the signal it is given and never lets go: a signal of this request's own,
  // stopped with the job's, rather than the job's, which would gather a listener per request.
  const request = new AbortController();
  const stop = () => request.abort(access.signal.reason);
  if (access.signal.aborted) stop();
  else access.signal.addEventListener('abort', stop, { once: true });
  let response: ResponseLike;
  try {
    response = await restFor(settings, secrets, access).queueRequest({
      fullRoute: route as RouteLike,
      method: RequestMethod.Get,
      query: search,
      // The setting holds the version already (…/api/v10).
      versioned: false,
      signal: request.signal,
    });
  } catch (error) {
    throw translated(error, route, access);
  } finally {
    access.signal.removeEventListener('abort', stop);
  }
  const text = await response.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    throw new Error(`the answer to ${route} (${response.status}) is not JSON: is ${apiBase(settings)} Discord's HTTP API?`);
  }
  const date = Date.parse(response.headers.get('date') ?? '');
  return { body, serverTime: Number.isNaN(date) ? null : date };
}

function translated(error: unknown, route: string, access: PlatformAccess): unknown {
  if (error instanceof RateLimitWait || error instanceof CredentialRejected) return error;
  const later = (ms: number) => new Date(access.now().getTime() + ms);
  if (error instanceof RateLimitError) {
    const wait = Math.max(0, Math.ceil(waitOf(error)));
    return new RateLimitWait(
      later(wait),
      `Discord asked to wait ${seconds(wait)} (${error.method.toUpperCase()} ${route}, ${error.global ? 'the global limit' : "the route's limit"})`,
    );
  }
  if (error instanceof DiscordAPIError) {
    const detail = typeof error.rawError === 'object' && error.rawError && 'message' in error.rawError ? String(error.rawError.message) : error.message;
    if (error.status === 401) {
      return new CredentialRejected(
        `Discord refused the bot token (401: ${detail}). Replace it in the connector's secrets (the bot's token, from the Developer Portal's Bot page).`,
      );
    }
    return new DiscordError(error.status, typeof error.code === 'number' ? error.code : null, route, detail);
  }
  if (error instanceof HTTPError) return new RateLimitWait(later(SERVER_ERROR_WAIT_MS), `Discord answered ${error.status} for ${route}; trying again later`);
  if (error instanceof Unreachable)
    return new RateLimitWait(later(SERVER_ERROR_WAIT_MS), `Discord could not be reached (${error.message}); trying again later`);
  return error;
}

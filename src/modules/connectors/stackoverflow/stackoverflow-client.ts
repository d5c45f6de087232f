import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { DEFAULT_SITE, STACK_EXCHANGE_API, type StackOverflowSecrets, type StackOverflowSettings, type Wrapper } from './stackoverflow.schemas.ts';

/*
 * The Stack Exchange API 2.3, as its documentation describes it:
 * - every answer is the common wrapper (https://api.stackexchange.com/docs/wrapper): `items`, `has_more`,
 *   `quota_max`, `quota_remaining`, and `backoff` when the method is to be left alone for that many seconds;
 * - errors come with HTTP 400 and `error_id`, `error_name`, `error_message` on the wrapper
 *   (https://api.stackexchange.com/docs/error-handling);
 * - the daily quota is 300 requests an IP without a key, 10,000 with an app's key; `backoff` is per method
 *   and must be obeyed (https://api.stackexchange.com/docs/throttle);
 * - answers are compressed, GZIP unless DEFLATE was asked for, even when the request did not ask for either;
 *   an error raised early may come uncompressed (https://api.stackexchange.com/docs/compression). Hearth's
 *   outbound guard hands the bytes over as they came, so they are decompressed here.
 */

/** A backoff this short is waited out in the page; a longer one ends the page and the sync waits. */
const SHORT_BACKOFF_MS = 15_000;
/** The API unreachable, a 5xx, or its internal_error / temporarily_unavailable: likely an incident. */
const SERVER_ERROR_WAIT_MS = 60_000;
/** A throttle_violation that says nothing of how long: the per-second ban lasts "30 seconds to a few minutes". */
const THROTTLE_WAIT_MS = 5 * 60_000;
/** An answer larger than this once decompressed is refused (a page of 100 questions with bodies is a few MB). */
const MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

/** The errors of https://api.stackexchange.com/docs/error-handling that are about the key or a token. */
const CREDENTIAL_ERRORS = new Set([401, 402, 403, 405, 406]);

export function apiBase(settings: StackOverflowSettings): string {
  return (settings.apiUrl ?? STACK_EXCHANGE_API).replace(/\/+$/, '');
}

export function siteOf(settings: StackOverflowSettings): string {
  return settings.site ?? DEFAULT_SITE;
}

export interface Quota {
  max: number;
  remaining: number;
}

export interface Listed<T> {
  items: T[];
  hasMore: boolean;
  quota: Quota | null;
}

/**
 * What the API said that outlives one request: when each method may be called again (`backoff`), and the
 * quota left. Kept per API address and per keyed-or-anonymous use, since the quota is counted per IP and key.
 */
interface ApiState {
  backoffUntil: Map<string, number>;
  quota: Quota | null;
  /** When a spent quota comes back: the next UTC day. */
  quotaBackAt: number | null;
}

function stateOf(access: PlatformAccess, settings: StackOverflowSettings, secrets: StackOverflowSecrets): ApiState {
  const key = `stackoverflow ${apiBase(settings)} ${secrets.key ? 'keyed' : 'anonymous'}`;
  let state = access.cache.get(key) as ApiState | undefined;
  if (!state) {
    state = { backoffUntil: new Map(), quota: null, quotaBackAt: null };
    access.cache.set(key, state);
  }
  return state;
}

/** Midnight UTC after `now`: when the API's daily quota starts again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** The time before which the API asked to be left alone (a method's long backoff, or a spent quota), if any. */
export function pauseFor(methods: string[], settings: StackOverflowSettings, secrets: StackOverflowSecrets, access: PlatformAccess): Date | null {
  const state = stateOf(access, settings, secrets);
  const now = access.now().getTime();
  let until = state.quotaBackAt !== null && state.quotaBackAt > now ? state.quotaBackAt : 0;
  for (const method of methods) {
    const backoff = state.backoffUntil.get(method) ?? 0;
    if (backoff - now > SHORT_BACKOFF_MS) until = Math.max(until, backoff);
  }
  return until > now ? new Date(until) : null;
}

export function lastQuota(settings: StackOverflowSettings, secrets: StackOverflowSecrets, access: PlatformAccess): Quota | null {
  return stateOf(access, settings, secrets).quota;
}

/**
 * One GET of a method: `method` names it for its backoff (the route, e.g. `questions/{ids}/answers`), `path`
 * is the route with its IDs. The site, the filter and the key (when there is one) are added here.
 */
export async function stackGet<T>(
  method: string,
  path: string,
  params: Record<string, string | number | undefined>,
  settings: StackOverflowSettings,
  secrets: StackOverflowSecrets,
  access: PlatformAccess,
): Promise<Listed<T>> {
  const state = stateOf(access, settings, secrets);
  await honourBackoff(method, state, access);
  if (state.quotaBackAt !== null) {
    if (state.quotaBackAt > access.now().getTime())
      throw new RateLimitWait(
        new Date(state.quotaBackAt),
        `the Stack Exchange API's daily quota is spent (${quotaText(state.quota)}); it comes back at midnight UTC`,
      );
    state.quotaBackAt = null;
  }

  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  query.set('site', siteOf(settings));
  if (secrets.key) query.set('key', secrets.key);
  let response: Response;
  try {
    // A kept-alive connection closed under the request is sent again by the outbound layer; this is a real failure.
    response = await access.fetch(`${apiBase(settings)}/${path}?${query}`, {
      headers: { accept: 'application/json', 'accept-encoding': 'gzip, deflate' },
      signal: access.signal,
    });
  } catch (error) {
    if (access.signal.aborted) throw error;
    throw new RateLimitWait(
      new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
      `the Stack Exchange API could not be reached (${error instanceof Error ? error.message : String(error)}); trying again later`,
    );
  }
  const raw = Buffer.from(await response.arrayBuffer());
  // The API signals its limits in the wrapper; a 429 is a proxy's in front of it, with its own Retry-After.
  if (response.status === 429) {
    const header = response.headers.get('retry-after')?.trim() ?? '';
    const wait = /^\d+$/.test(header) ? Number(header) * 1000 : THROTTLE_WAIT_MS;
    throw new RateLimitWait(new Date(access.now().getTime() + wait), `the Stack Exchange API's address answered 429 for /${method}`);
  }
  if (response.status >= 500) {
    throw new RateLimitWait(
      new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
      `the Stack Exchange API answered ${response.status} for /${method}; trying again later`,
    );
  }
  let body: Wrapper<T>;
  try {
    body = JSON.parse((await decompress(raw, response.headers.get('content-encoding'))).toString('utf8')) as Wrapper<T>;
  } catch {
    throw new Error(`the answer to /${method} (${response.status}) is not JSON: is ${apiBase(settings)} the Stack Exchange API?`);
  }

  const now = access.now().getTime();
  if (typeof body.backoff === 'number' && body.backoff > 0) {
    state.backoffUntil.set(method, Math.max(state.backoffUntil.get(method) ?? 0, now + body.backoff * 1000));
  }
  if (typeof body.quota_remaining === 'number' && typeof body.quota_max === 'number') {
    state.quota = { max: body.quota_max, remaining: body.quota_remaining };
    // This answer spent the last request of the day: the next one would be refused.
    if (body.quota_remaining <= 0) state.quotaBackAt = nextUtcDay(access.now()).getTime();
  }
  if (body.error_id !== undefined || body.error_name !== undefined) throw errorOf(method, body, settings, secrets, state, access);
  if (!response.ok) throw new Error(`the Stack Exchange API answered ${response.status} for /${method}`);
  return { items: body.items ?? [], hasMore: body.has_more === true, quota: state.quota };
}

/** Every item of a method over its pages (`has_more`), 100 a page. */
export async function stackGetAll<T>(
  method: string,
  path: string,
  params: Record<string, string | number | undefined>,
  settings: StackOverflowSettings,
  secrets: StackOverflowSecrets,
  access: PlatformAccess,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const answer = await stackGet<T>(method, path, { ...params, page, pagesize: 100 }, settings, secrets, access);
    items.push(...answer.items);
    if (!answer.hasMore || answer.items.length === 0) return items;
  }
}

async function honourBackoff(method: string, state: ApiState, access: PlatformAccess): Promise<void> {
  const until = state.backoffUntil.get(method);
  if (until === undefined) return;
  const wait = until - access.now().getTime();
  if (wait <= 0) {
    state.backoffUntil.delete(method);
    return;
  }
  if (wait > SHORT_BACKOFF_MS)
    throw new RateLimitWait(new Date(until), `the Stack Exchange API asked for no /${method} request for ${Math.ceil(wait / 1000)} s (backoff)`);
  await pause(wait, access.signal);
  state.backoffUntil.delete(method);
}

function quotaText(quota: Quota | null): string {
  return quota ? `${quota.remaining} of ${quota.max} requests left` : 'no request left';
}

/** The error of an answer with `error_id`: a wait, a refused key, or a plain error naming what is wrong. */
function errorOf(
  method: string,
  body: Wrapper<unknown>,
  settings: StackOverflowSettings,
  secrets: StackOverflowSecrets,
  state: ApiState,
  access: PlatformAccess,
): Error {
  const id = body.error_id ?? 0;
  const name = body.error_name ?? 'error';
  const message = body.error_message ?? '';
  const now = access.now();
  if (id === 502 || name === 'throttle_violation') {
    const seconds = /available in (\d+) seconds?/i.exec(message)?.[1];
    let until: Date;
    if (seconds) until = new Date(now.getTime() + Number(seconds) * 1000);
    else if (/backoff/i.test(message)) until = new Date(Math.max(state.backoffUntil.get(method) ?? 0, now.getTime() + SERVER_ERROR_WAIT_MS));
    else if (state.quota && state.quota.remaining <= 0) until = nextUtcDay(now);
    else until = new Date(now.getTime() + THROTTLE_WAIT_MS);
    return new RateLimitWait(until, `the Stack Exchange API refused /${method} (throttle_violation: ${message || 'too many requests'})`);
  }
  if (id === 500 || id === 503 || name === 'internal_error' || name === 'temporarily_unavailable') {
    return new RateLimitWait(new Date(now.getTime() + SERVER_ERROR_WAIT_MS), `the Stack Exchange API answered /${method} with ${name}; trying again later`);
  }
  if (CREDENTIAL_ERRORS.has(id)) {
    return new CredentialRejected(`the Stack Exchange API refused the request (${name}): check the app key in the connector's secrets, or remove it`);
  }
  if (id === 400 || name === 'bad_parameter') {
    // "An invalid parameter was passed, this includes even high level parameters like key or site": the
    // message names the parameter.
    if (secrets.key && /^\W*key\b/i.test(message)) {
      return new CredentialRejected(
        "the Stack Exchange API refused the app key (bad_parameter: key). Replace it in the connector's secrets with the key stackapps.com shows for the app, or remove it",
      );
    }
    if (/\bsite\b/i.test(message)) {
      return new Error(
        `the Stack Exchange API knows no site "${siteOf(settings)}" (${message}): the site setting is the site's API name, e.g. stackoverflow, serverfault`,
      );
    }
    return new Error(`the Stack Exchange API refused a parameter of /${method} (bad_parameter: ${message})`);
  }
  return new Error(`the Stack Exchange API answered /${method} with ${name} (${id})${message ? `: ${message}` : ''}`);
}

/**
 * The answer's bytes as text: GZIP or DEFLATE as the API sends them, or as they came when something between
 * (a proxy, a fetch that decodes) already decompressed them, which the magic numbers tell.
 */
export async function decompress(raw: Buffer, encoding: string | null): Promise<Buffer> {
  const options = { maxOutputLength: MAX_DECOMPRESSED_BYTES };
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) return gunzip(raw, options);
  const first = raw.toString('latin1', 0, Math.min(raw.length, 64)).trimStart()[0];
  if (first === '{' || first === '[' || raw.length === 0) return raw;
  if (/deflate/i.test(encoding ?? '') || !encoding) {
    try {
      return await inflate(raw, options);
    } catch {
      return inflateRaw(raw, options);
    }
  }
  return raw;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

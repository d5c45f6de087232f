import { createHash } from 'node:crypto';
import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { DEFAULT_USER_AGENT, REDDIT_API, REDDIT_AUTH, type RedditSecrets, type RedditSettings } from './reddit.schemas.ts';

/*
 * Reddit's OAuth API as its documentation describes it:
 * - "OAuth2" (https://github.com/reddit-archive/reddit/wiki/OAuth2), application-only OAuth: POST
 *   `grant_type=client_credentials` to the token endpoint with the app's client ID and secret as HTTP basic
 *   auth; the answer is `{access_token, token_type: "bearer", expires_in, scope}`, or 401 for credentials it
 *   does not know. API requests then carry `Authorization: bearer <token>`.
 * - "API" (https://github.com/reddit-archive/reddit/wiki/API), Rules: a descriptive User-Agent, and the
 *   X-Ratelimit-Used / -Remaining / -Reset headers (Reset: seconds to the end of the period).
 * - https://www.reddit.com/dev/api: JSON answers have <, > and & escaped unless `raw_json=1` is given.
 */

/** A 429 with neither Retry-After nor X-Ratelimit-Reset: Reddit's period is short, a minute is enough. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;
/** How long the job waits after a 5xx or an unreachable Reddit: likely an incident. */
const SERVER_ERROR_WAIT_MS = 60_000;
/** A token is not used in its last minute: a page read with it must not be refused half-way. */
const TOKEN_MARGIN_MS = 60_000;

/** Reddit answered something that is neither a limit nor a refused credential (a private or banned subreddit, a 404). */
export class RedditError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string | null,
  ) {
    super(message);
  }
}

/**
 * What one page or one test has learned of Reddit's limit: once an answer said none remain, no request is
 * made before the reset (the page is stored and the sync waits; a test stops).
 */
export interface RedditSession {
  pauseUntil: Date | null;
}

export const newSession = (): RedditSession => ({ pauseUntil: null });

export const apiBase = (settings: RedditSettings) => (settings.apiUrl ?? REDDIT_API).replace(/\/+$/, '');
const authUrl = (settings: RedditSettings) => settings.authUrl ?? REDDIT_AUTH;
const userAgent = (settings: RedditSettings) => settings.userAgent ?? DEFAULT_USER_AGENT;

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** One cache entry per token endpoint and app: the key is a hash, so the secret is not kept in it as text. */
function tokenKey(settings: RedditSettings, secrets: RedditSecrets): string {
  return `reddit token ${createHash('sha256')
    .update(`${authUrl(settings)}\n${secrets.clientId}\n${secrets.clientSecret}`)
    .digest('hex')}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function wait(access: PlatformAccess, ms: number): Date {
  return new Date(access.now().getTime() + ms);
}

/** An application-only bearer token, from the cache while it lasts, else asked of the token endpoint. */
async function tokenOf(settings: RedditSettings, secrets: RedditSecrets, access: PlatformAccess): Promise<string> {
  const key = tokenKey(settings, secrets);
  const cached = access.cache.get(key) as CachedToken | undefined;
  if (cached && cached.expiresAt - TOKEN_MARGIN_MS > access.now().getTime()) return cached.token;
  let response: Response;
  try {
    response = await access.fetch(authUrl(settings), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${secrets.clientId}:${secrets.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': userAgent(settings),
      },
      body: 'grant_type=client_credentials',
      signal: access.signal,
    });
  } catch (error) {
    if (access.signal.aborted) throw error;
    throw new RateLimitWait(wait(access, SERVER_ERROR_WAIT_MS), `Reddit's token endpoint could not be reached (${describe(error)}); trying again later`);
  }
  const text = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) {
    throw new CredentialRejected(
      `Reddit refused the app's client ID and secret (${response.status} from the token endpoint). Check them at reddit.com/prefs/apps and replace them in the connector's secrets.`,
    );
  }
  if (response.status === 429) throw new RateLimitWait(limitWait(response, access), 'Reddit asked to slow down (429 from the token endpoint)');
  if (response.status >= 500)
    throw new RateLimitWait(wait(access, SERVER_ERROR_WAIT_MS), `Reddit's token endpoint answered ${response.status}; trying again later`);
  let body: { access_token?: unknown; expires_in?: unknown; error?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`the token endpoint's answer (${response.status}) is not JSON: is ${authUrl(settings)} Reddit's access_token endpoint?`);
  }
  // Reddit answers a malformed request with status 200 and an `error` ("unsupported_grant_type").
  if (typeof body.error === 'string' || typeof body.access_token !== 'string' || !body.access_token) {
    throw new Error(`Reddit's token endpoint answered ${response.status} without a token${typeof body.error === 'string' ? ` ("${body.error}")` : ''}`);
  }
  const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : 3_600_000;
  access.cache.set(key, { token: body.access_token, expiresAt: access.now().getTime() + lifetime } satisfies CachedToken);
  return body.access_token;
}

/** The end of Reddit's period when an answer says no request remains in it, else null. */
function spentUntil(response: Response, access: PlatformAccess): Date | null {
  const remaining = Number(response.headers.get('x-ratelimit-remaining') ?? NaN);
  const reset = Number(response.headers.get('x-ratelimit-reset') ?? NaN);
  if (Number.isNaN(remaining) || remaining >= 1 || !Number.isFinite(reset) || reset < 0) return null;
  return wait(access, reset * 1000);
}

/** How long a 429 asks to wait: Retry-After, else the period's reset, else a minute. */
function limitWait(response: Response, access: PlatformAccess): Date {
  for (const name of ['retry-after', 'x-ratelimit-reset']) {
    const value = response.headers.get(name)?.trim() ?? '';
    if (/^\d+(\.\d+)?$/.test(value)) return wait(access, Math.ceil(Number(value)) * 1000);
  }
  return wait(access, DEFAULT_RATE_LIMIT_WAIT_MS);
}

function reasonOf(text: string): string | null {
  try {
    const reason = (JSON.parse(text) as { reason?: unknown }).reason;
    return typeof reason === 'string' && reason ? reason : null;
  } catch {
    return null;
  }
}

/**
 * A GET of the OAuth API (`path` from the API's root, e.g. `/r/typescript/new`) with the bearer token and
 * the User-Agent, as JSON. A 401 with a token from the cache (revoked, or Reddit's clock ahead of ours) is
 * tried once with a new token; a 401 with a new one is a refused credential.
 */
export async function redditGet<T>(
  path: string,
  query: Record<string, string | undefined>,
  settings: RedditSettings,
  secrets: RedditSecrets,
  access: PlatformAccess,
  session: RedditSession,
): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  params.set('raw_json', '1');
  const url = `${apiBase(settings)}${path}?${params}`;
  for (let attempt = 0; ; attempt++) {
    if (session.pauseUntil && session.pauseUntil > access.now()) {
      throw new RateLimitWait(session.pauseUntil, `Reddit's rate limit is spent until ${session.pauseUntil.toISOString()}`);
    }
    const token = await tokenOf(settings, secrets, access);
    let response: Response;
    try {
      response = await access.fetch(url, {
        headers: { authorization: `bearer ${token}`, accept: 'application/json', 'user-agent': userAgent(settings) },
        signal: access.signal,
      });
    } catch (error) {
      if (access.signal.aborted) throw error;
      throw new RateLimitWait(wait(access, SERVER_ERROR_WAIT_MS), `Reddit could not be reached (${describe(error)}); trying again later`);
    }
    const text = await response.text().catch(() => '');
    const spent = spentUntil(response, access);
    if (spent) session.pauseUntil = spent;
    if (response.status === 401) {
      access.cache.delete(tokenKey(settings, secrets));
      if (attempt === 0) continue;
      throw new CredentialRejected("Reddit refused the app's new bearer token (401). Check the app at reddit.com/prefs/apps and its client ID and secret.");
    }
    if (response.status === 429) throw new RateLimitWait(limitWait(response, access), `Reddit asked to slow down (429 on ${path})`);
    if (response.status >= 500)
      throw new RateLimitWait(wait(access, SERVER_ERROR_WAIT_MS), `Reddit answered ${response.status} for ${path}; trying again later`);
    if (!response.ok) throw refusal(path, response.status, reasonOf(text));
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new Error(`the answer to ${path} (${response.status}) is not JSON: is ${apiBase(settings)} Reddit's OAuth API?`);
    }
  }
}

/** Reddit's 403 and 404 answers, with the `reason` its body gives for a subreddit. */
function refusal(path: string, status: number, reason: string | null): RedditError {
  const subreddit = /^\/r\/([^/]+)/.exec(path)?.[1];
  const where = subreddit ? `r/${subreddit}` : path;
  if (reason === 'private') return new RedditError(`${where} is private: only its approved members can read it`, status, reason);
  if (reason === 'banned') return new RedditError(`${where} is banned by Reddit`, status, reason);
  if (reason === 'quarantined' || reason === 'gated') return new RedditError(`${where} is ${reason}: an application-only token cannot read it`, status, reason);
  if (status === 404) return new RedditError(`${where} was not found on Reddit (404)`, status, reason);
  if (status === 403) {
    return new RedditError(
      `Reddit refused ${path} (403${reason ? `, ${reason}` : ''}): check the userAgent setting (Reddit blocks generic ones)`,
      status,
      reason,
    );
  }
  return new RedditError(`Reddit answered ${status} for ${path}`, status, reason);
}

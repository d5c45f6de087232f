import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import type { DiscourseSecrets, DiscourseSettings } from './discourse.schemas.ts';

/** A run of 5xx is retried this many times, `SERVER_ERROR_BACKOFF_MS` x attempt apart, before the job waits. */
const SERVER_ERROR_RETRIES = 2;
const SERVER_ERROR_BACKOFF_MS = 250;
/** How long the job waits after a run of 5xx: the forum is likely restarting or overloaded. */
const SERVER_ERROR_WAIT_MS = 60_000;
/** A 429 without a usable Retry-After: Discourse's own limits are per minute. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

export class DiscourseNotFound extends Error {}
/** The key works but may not read this (a 403 on an admin route for a non-admin key). */
export class DiscourseForbidden extends Error {}

/** The forum's base address without a trailing slash. */
export function forumBase(settings: DiscourseSettings): string {
  return settings.url.replace(/\/+$/, '');
}

export interface RequestOptions {
  /** The route needs no key (the forum's public basic info). */
  anonymous?: boolean;
  /** A 403 here means "not allowed for this key" (admin routes), not a rejected key. */
  forbiddenIsPermission?: boolean;
}

/**
 * One GET of the forum's JSON API with the Api-Key / Api-Username headers (the API description's
 * "Authentication"). Discourse answers an unknown key, or a username the key may not act as, with a 403
 * `invalid_access` (older versions a 401): the credential is rejected. 429 carries Retry-After in seconds.
 */
export async function discourseGet<T>(
  path: string,
  settings: DiscourseSettings,
  secrets: DiscourseSecrets,
  access: PlatformAccess,
  options: RequestOptions = {},
): Promise<T> {
  const url = `${forumBase(settings)}${path}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (!options.anonymous) {
    headers['api-key'] = secrets.apiKey;
    headers['api-username'] = settings.apiUsername;
  }
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await access.fetch(url, { headers, signal: access.signal });
    } catch (error) {
      if (access.signal.aborted) throw error;
      if (attempt < SERVER_ERROR_RETRIES) {
        await pause(SERVER_ERROR_BACKOFF_MS * (attempt + 1), access.signal);
        continue;
      }
      throw new RateLimitWait(
        new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
        `the forum could not be reached (${describe(error)}); trying again later`,
      );
    }
    if (response.ok) {
      const text = await response.text();
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new Error(`the answer to ${path} is not JSON: is ${forumBase(settings)} a Discourse forum?`);
      }
    }
    const body = await response.text().catch(() => '');
    if (response.status === 429) {
      throw new RateLimitWait(retryAfter(response, body, access.now()), 'the forum asked to slow down (429 Too Many Requests)');
    }
    if (response.status >= 500) {
      if (attempt < SERVER_ERROR_RETRIES) {
        await pause(SERVER_ERROR_BACKOFF_MS * (attempt + 1), access.signal);
        continue;
      }
      throw new RateLimitWait(
        new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
        `the forum answered ${response.status} ${SERVER_ERROR_RETRIES + 1} times for ${path}; trying again later`,
      );
    }
    if (response.status === 403 && options.forbiddenIsPermission && !isInvalidAccess(body)) {
      throw new DiscourseForbidden(`the key may not read ${path} (403)`);
    }
    if (response.status === 401 || response.status === 403) {
      throw new CredentialRejected(
        `the forum refused the API key (${response.status}): check the key, and that it may act as the user "${settings.apiUsername}"`,
      );
    }
    if (response.status === 404) throw new DiscourseNotFound(`${path} was not found on the forum (404)`);
    throw new Error(`the forum answered ${response.status} for ${path}`);
  }
}

/** Discourse's answer to a bad key: `error_type: invalid_access` with "The API username or key is invalid". */
function isInvalidAccess(body: string): boolean {
  return /username or key is invalid/i.test(body);
}

function retryAfter(response: Response, body: string, now: Date): Date {
  const header = response.headers.get('retry-after');
  let seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : NaN;
  if (Number.isNaN(seconds) && header) {
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return new Date(Math.max(at, now.getTime()));
  }
  if (Number.isNaN(seconds)) {
    // The JSON answer also says it: { "extras": { "wait_seconds": N } }.
    try {
      const wait = (JSON.parse(body) as { extras?: { wait_seconds?: unknown } }).extras?.wait_seconds;
      if (typeof wait === 'number') seconds = wait;
    } catch {
      // not JSON: the default below
    }
  }
  return new Date(now.getTime() + (Number.isNaN(seconds) ? DEFAULT_RATE_LIMIT_WAIT_MS : seconds * 1000));
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

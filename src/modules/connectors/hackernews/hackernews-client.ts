import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { HACKERNEWS_API, type HackerNewsSettings } from './hackernews.schemas.ts';

/*
 * Hacker News Search (https://hn.algolia.com/api): public GETs answering JSON, without a credential. Its one
 * documented limit: "10,000 requests per hour from a single IP". Algolia counts such a limit over the last
 * hour and answers a request past it with a 429 (the API key's maxQueriesPerIPPerHour,
 * https://www.algolia.com/doc/api-reference/api-methods/add-api-key/); errors come as `{message, status}`.
 */

/** The documented limit, per address and hour. */
export const REQUESTS_PER_HOUR = 10_000;
/**
 * What this process lets itself ask of one API address in an hour: under the limit, since other software on
 * the same address (or another Hearth) counts against it too.
 */
export const HOURLY_BUDGET = 9_000;
const HOUR_MS = 60 * 60_000;
/** A 429 without a usable Retry-After: the limit counts the last hour, so an hour is always enough. */
const DEFAULT_RATE_LIMIT_WAIT_MS = HOUR_MS;
/** A run of 5xx (or no answer) is retried this many times, `SERVER_ERROR_BACKOFF_MS` x attempt apart, before the job waits. */
const SERVER_ERROR_RETRIES = 2;
const SERVER_ERROR_BACKOFF_MS = 250;
const SERVER_ERROR_WAIT_MS = 60_000;

/** The API answered 404: a user without a profile, or an address that is not the search API. */
export class HackerNewsNotFound extends Error {}

export function apiBase(settings: Pick<HackerNewsSettings, 'apiUrl'>): string {
  return (settings.apiUrl ?? HACKERNEWS_API).replace(/\/+$/, '');
}

/**
 * The requests this process made to an API address in the last hour (shared by every connector of the
 * kind in the process: they all leave from the same address), oldest first.
 */
export function budgetKey(base: string): string {
  return `hackernews requests ${base}`;
}

/** Counts a request against the hourly budget, or says when one may be made again. */
function spend(base: string, access: PlatformAccess): void {
  const now = access.now().getTime();
  const key = budgetKey(base);
  const sent = (access.cache.get(key) as number[] | undefined) ?? [];
  let expired = 0;
  while (expired < sent.length && sent[expired]! <= now - HOUR_MS) expired += 1;
  if (expired > 0) sent.splice(0, expired);
  if (sent.length >= HOURLY_BUDGET) {
    throw new RateLimitWait(
      new Date(sent[0]! + HOUR_MS),
      `${HOURLY_BUDGET.toLocaleString('en')} requests made to Hacker News Search in the last hour (its limit is ${REQUESTS_PER_HOUR.toLocaleString('en')} an hour per address); going on when the oldest is an hour old`,
    );
  }
  sent.push(now);
  access.cache.set(key, sent);
}

/** One GET of the API, `path` under its base with `query`; the answer's JSON. */
export async function hackerNewsGet<T>(
  path: string,
  query: Record<string, string | undefined>,
  settings: Pick<HackerNewsSettings, 'apiUrl'>,
  access: PlatformAccess,
): Promise<T> {
  const base = apiBase(settings);
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
  const url = `${base}${path}${search.size > 0 ? `?${search}` : ''}`;
  for (let attempt = 0; ; attempt++) {
    spend(base, access);
    let response: Response;
    try {
      response = await access.fetch(url, { headers: { accept: 'application/json' }, signal: access.signal });
    } catch (error) {
      if (access.signal.aborted) throw error;
      if (attempt < SERVER_ERROR_RETRIES) {
        await pause(SERVER_ERROR_BACKOFF_MS * (attempt + 1), access.signal);
        continue;
      }
      throw new RateLimitWait(
        new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
        `Hacker News Search could not be reached (${error instanceof Error ? error.message : String(error)}); trying again later`,
      );
    }
    const text = await response.text().catch(() => '');
    if (response.ok) {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new Error(`the answer to ${path} is not JSON: is ${base} Hacker News Search (https://hn.algolia.com/api/v1)?`);
      }
    }
    if (response.status === 429) {
      throw new RateLimitWait(retryAfter(response, access.now()), `Hacker News Search asked to slow down (429 on ${path})`);
    }
    if (response.status >= 500) {
      if (attempt < SERVER_ERROR_RETRIES) {
        await pause(SERVER_ERROR_BACKOFF_MS * (attempt + 1), access.signal);
        continue;
      }
      throw new RateLimitWait(
        new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
        `Hacker News Search answered ${response.status} ${SERVER_ERROR_RETRIES + 1} times for ${path}; trying again later`,
      );
    }
    // No credential is sent: a refusal is of this server's address ("blacklisted", as the documentation says),
    // which only a person can lift. The connector fails, saying so, rather than asking again and again.
    if (response.status === 401 || response.status === 403) {
      throw new CredentialRejected(
        `Hacker News Search refused this server's requests (${response.status}${messageOf(text)}): its address may be blocked; the documentation says to write to support@algolia.com. Resume the connector once it is lifted.`,
      );
    }
    if (response.status === 404) throw new HackerNewsNotFound(`${path} was not found (404)`);
    throw new Error(`Hacker News Search answered ${response.status} for ${path}${messageOf(text)}`);
  }
}

/** Algolia's error message (`{message, status}`), shortened, or nothing. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string' && body.message.trim()) return `: ${body.message.trim().slice(0, 300)}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return '';
}

function retryAfter(response: Response, now: Date): Date {
  const header = response.headers.get('retry-after')?.trim() ?? '';
  if (/^\d+$/.test(header)) return new Date(now.getTime() + Number(header) * 1000);
  const at = header ? Date.parse(header) : NaN;
  return Number.isNaN(at) ? new Date(now.getTime() + DEFAULT_RATE_LIMIT_WAIT_MS) : new Date(at);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { DEVTO_API, type DevtoSecrets, type DevtoSettings } from './devto.schemas.ts';

/**
 * A 429 without a usable Retry-After: Forem's documented answer to too many requests says "Rate limit
 * reached, try again in 30 seconds".
 */
const DEFAULT_RATE_LIMIT_WAIT_MS = 30_000;
/** How long the job waits after a 5xx or an unreachable API: the community's server is likely having an incident. */
const SERVER_ERROR_WAIT_MS = 60_000;
/**
 * Forem answers its API v1 only to requests that ask for it by this media type (without it, the deprecated
 * v0 answers); the API description says every endpoint takes it.
 */
const ACCEPT_V1 = 'application/vnd.forem.api-v1+json';

/** Forem answered 404 (`{error: "not found"}`): an organization, an article or a user that is not there (any more). */
export class DevtoNotFound extends Error {}

export function apiBase(settings: DevtoSettings): string {
  return (settings.apiUrl ?? DEVTO_API).replace(/\/+$/, '');
}

/**
 * The community's own address (dev.to for https://dev.to/api): Forem gives some images as paths on it, and a
 * person's profile page is `<site>/<username>`.
 */
export function siteBase(settings: DevtoSettings): string {
  return apiBase(settings).replace(/\/api$/, '');
}

/**
 * One GET of the API, with the key (when there is one) in the `api-key` header. A 429 carries Retry-After in
 * seconds (the API description's ErrorTooManyRequests); a 401 means the key is refused, or that the community
 * is private and wants one.
 */
export async function devtoGet<T>(
  path: string,
  query: Record<string, string | number | undefined>,
  settings: DevtoSettings,
  secrets: DevtoSecrets,
  access: PlatformAccess,
): Promise<T> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const url = `${apiBase(settings)}${path}${search.size > 0 ? `?${search}` : ''}`;
  const headers: Record<string, string> = { accept: ACCEPT_V1 };
  if (secrets.apiKey) headers['api-key'] = secrets.apiKey;
  let response: Response;
  try {
    // A kept-alive connection closed under the request is sent again by the outbound layer; this is a real failure.
    response = await access.fetch(url, { headers, signal: access.signal });
  } catch (error) {
    if (access.signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new RateLimitWait(new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS), `DEV could not be reached (${message}); trying again later`);
  }
  const text = await response.text().catch(() => '');
  if (response.status === 429) throw new RateLimitWait(retryAfter(response, access.now()), `DEV asked to slow down (429 on ${path})`);
  if (response.status >= 500)
    throw new RateLimitWait(new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS), `DEV answered ${response.status} for ${path}; trying again later`);
  if (response.status === 401) {
    throw new CredentialRejected(
      secrets.apiKey
        ? `DEV refused the API key (401 on ${path}). Replace it in the connector's secrets (Settings → Extensions → DEV Community API Keys).`
        : `DEV answered 401 on ${path}: this community is private and wants an API key. Give one in the connector's secrets (apiKey).`,
    );
  }
  if (response.status === 404) throw new DevtoNotFound(`DEV has nothing at ${path} (404)`);
  if (response.status !== 200) throw new Error(`DEV answered ${response.status} for ${path}${errorOf(text)}`);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`the answer to ${path} is not JSON: is ${apiBase(settings)} a Forem community's API (such as https://dev.to/api)?`);
  }
}

/** Forem's error body, `{error, status}`, as a clause; nothing when it has none. */
function errorOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' && body.error ? ` ("${body.error.slice(0, 200)}")` : '';
  } catch {
    return '';
  }
}

/** Retry-After in seconds, or as an HTTP date (RFC 9110 allows both); absent or unreadable: 30 seconds. */
function retryAfter(response: Response, now: Date): Date {
  const header = response.headers.get('retry-after')?.trim() ?? '';
  if (/^\d+$/.test(header)) return new Date(now.getTime() + Number(header) * 1000);
  const at = header ? Date.parse(header) : NaN;
  return Number.isNaN(at) ? new Date(now.getTime() + DEFAULT_RATE_LIMIT_WAIT_MS) : new Date(at);
}

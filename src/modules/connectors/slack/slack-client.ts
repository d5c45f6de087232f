import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { SLACK_API, type SlackSecrets, type SlackSettings } from './slack.schemas.ts';

/** A 429 without a usable Retry-After: Slack's tiers are per minute. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;
/** How long the job waits after a 5xx or an unreachable API: Slack is likely having an incident. */
const SERVER_ERROR_WAIT_MS = 60_000;

/**
 * Slack's answers to a token it will not take ("Web API basics", https://api.slack.com/web#errors, and each
 * method's error list in the API description): the connector fails until its secrets change.
 */
const REJECTED = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive']);

/** Slack answered `ok: false` with an error that is not about the token or the rate (a channel not found, a scope missing). */
export class SlackError extends Error {
  constructor(
    readonly method: string,
    readonly code: string,
    needed: string | null,
  ) {
    super(`Slack answered ${method} with "${code}"${needed ? ` (the app needs the ${needed} scope)` : ''}${hintOf(code)}`);
  }
}

function hintOf(code: string): string {
  if (code === 'channel_not_found') return ': check the channel ID, and invite the bot to a private channel';
  if (code === 'not_in_channel') return ': invite the bot to the channel';
  return '';
}

export function apiBase(settings: SlackSettings): string {
  return (settings.apiUrl ?? SLACK_API).replace(/\/+$/, '');
}

/**
 * One call of a Web API method, as a GET with its arguments in the query and the token as a bearer ("Web API
 * basics"). Slack answers most errors with status 200 and `{ ok: false, error }`: those are read from the
 * body. A 429 carries Retry-After in seconds ("Rate limits", https://api.slack.com/docs/rate-limits).
 */
export async function slackCall<T>(
  method: string,
  args: Record<string, string | undefined>,
  settings: SlackSettings,
  secrets: SlackSecrets,
  access: PlatformAccess,
): Promise<T> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) if (value !== undefined) query.set(name, value);
  const url = `${apiBase(settings)}/${method}${query.size > 0 ? `?${query}` : ''}`;
  let response: Response;
  try {
    response = await access.fetch(url, { headers: { accept: 'application/json', authorization: `Bearer ${secrets.botToken}` }, signal: access.signal });
  } catch (error) {
    if (access.signal.aborted) throw error;
    throw new RateLimitWait(
      new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS),
      `Slack could not be reached (${error instanceof Error ? error.message : String(error)}); trying again later`,
    );
  }
  const text = await response.text().catch(() => '');
  if (response.status === 429) throw new RateLimitWait(retryAfter(response, access.now()), `Slack asked to slow down (429 on ${method})`);
  if (response.status >= 500)
    throw new RateLimitWait(new Date(access.now().getTime() + SERVER_ERROR_WAIT_MS), `Slack answered ${response.status} for ${method}; trying again later`);
  let body: { ok?: boolean; error?: string; needed?: string };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`the answer to ${method} (${response.status}) is not JSON: is ${apiBase(settings)} Slack's Web API?`);
  }
  if (body.ok === true) return body as T;
  const code = body.error ?? `status ${response.status}`;
  if (REJECTED.has(code) || response.status === 401) {
    throw new CredentialRejected(`Slack refused the bot token (${code}). Replace it in the connector's secrets (the app's Bot User OAuth Token).`);
  }
  if (code === 'ratelimited') throw new RateLimitWait(retryAfter(response, access.now()), `Slack asked to slow down (ratelimited on ${method})`);
  throw new SlackError(method, code, body.needed ?? null);
}

function retryAfter(response: Response, now: Date): Date {
  const header = response.headers.get('retry-after')?.trim() ?? '';
  const seconds = /^\d+$/.test(header) ? Number(header) : NaN;
  return new Date(now.getTime() + (Number.isNaN(seconds) ? DEFAULT_RATE_LIMIT_WAIT_MS : seconds * 1000));
}

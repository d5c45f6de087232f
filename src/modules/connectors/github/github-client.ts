import { createHash } from 'node:crypto';
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { CredentialRejected, RateLimitWait, type PlatformAccess } from '../connector-kind.ts';
import { apiUrlOf, type GitHubSecrets, type GitHubSettings } from './github-settings.ts';

const GitHubOctokit = Octokit.plugin(throttling, retry);

// Octokit logs refused requests itself; the sync reports them once, as its outcome.
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export interface ClientOptions {
  /** plugin-retry's base delay for 5xx answers, in milliseconds (its waits are 1x, 4x, ... this). */
  retryBaseMs: number;
  /** How many times a 5xx answer is tried again before the sync waits instead. */
  retries: number;
  /** How long the sync waits after a run of 5xx answers. */
  serverErrorWaitMs: number;
  /** Octokit's throttling (at most one GraphQL request a second per credential, 10 REST at once); tests may turn it off. */
  throttle: boolean;
}

export const DEFAULT_CLIENT_OPTIONS: ClientOptions = { retryBaseMs: 500, retries: 2, serverErrorWaitMs: 60_000, throttle: true };

/** A client for one page or one test: Octokit over Hearth's outbound fetch, and the last rate-limit pause GitHub announced. */
export interface GitHubClient {
  octokit: InstanceType<typeof GitHubOctokit>;
  /** Set when an answer said `x-ratelimit-remaining: 0`: the page is stored, then the sync waits until GitHub's reset. */
  pauseUntil: Date | null;
  credential: string;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

function credentialName(secrets: GitHubSecrets): string {
  return 'token' in secrets ? 'access token' : 'GitHub App credentials';
}

async function tokenOf(settings: GitHubSettings, secrets: GitHubSecrets, access: PlatformAccess): Promise<string> {
  if ('token' in secrets) return secrets.token;
  if (!settings.installationId)
    throw new CredentialRejected('A GitHub App needs settings.installationId (the installation of the app on the account or organization).');
  // Installation tokens live an hour; one per installation is enough for every page until near its end.
  const key = `github installation token ${createHash('sha256')
    .update(`${apiUrlOf(settings)}\n${secrets.appId}\n${settings.installationId}\n${secrets.privateKey}`)
    .digest('hex')}`;
  const cached = access.cache.get(key) as CachedToken | undefined;
  if (cached && cached.expiresAt - 5 * 60_000 > access.now().getTime()) return cached.token;
  const auth = createAppAuth({
    appId: secrets.appId,
    privateKey: secrets.privateKey,
    installationId: settings.installationId,
    request: new Octokit({ baseUrl: apiUrlOf(settings), request: { fetch: access.fetch }, log: silent }).request,
  });
  try {
    const result = await auth({ type: 'installation' });
    access.cache.set(key, { token: result.token, expiresAt: Date.parse(result.expiresAt) });
    return result.token;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 401 || status === 404) {
      throw new CredentialRejected(
        status === 401
          ? `GitHub refused the GitHub App's ID or private key (401): check appId and privateKey.`
          : `GitHub knows no installation ${settings.installationId} of app ${secrets.appId} (404): check settings.installationId.`,
      );
    }
    throw toPlatformError(error, access, { options: DEFAULT_CLIENT_OPTIONS, credential: credentialName(secrets) });
  }
}

export async function createClient(settings: GitHubSettings, secrets: GitHubSecrets, access: PlatformAccess, options: ClientOptions): Promise<GitHubClient> {
  const token = await tokenOf(settings, secrets, access);
  const octokit = new GitHubOctokit({
    auth: token,
    baseUrl: apiUrlOf(settings),
    userAgent: 'hearth-connector',
    request: { fetch: access.fetch, signal: access.signal },
    // Limits are not waited out here: the sync job records the wait and runs again at the time GitHub gives.
    // Octokit spaces GraphQL calls and caps concurrency per `id`: one id per credential, shared by its pages.
    throttle: { enabled: options.throttle, id: throttleId(settings, secrets), onRateLimit: () => false, onSecondaryRateLimit: () => false },
    // 429 is a limit, not a failure to try again at once; only 5xx answers are retried, briefly.
    retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451], retries: options.retries, retryAfterBaseValue: options.retryBaseMs },
    log: silent,
  });
  const client: GitHubClient = { octokit, pauseUntil: null, credential: credentialName(secrets) };
  octokit.hook.after('request', (response) => {
    const reset = limitResetOf(response.headers as Record<string, string | number | undefined>);
    if (reset) client.pauseUntil = reset;
  });
  return client;
}

function throttleId(settings: GitHubSettings, secrets: GitHubSecrets): string {
  const who = 'token' in secrets ? secrets.token : `${secrets.appId}:${settings.installationId}`;
  return createHash('sha256')
    .update(`${apiUrlOf(settings)}\n${who}`)
    .digest('hex')
    .slice(0, 16);
}

function limitResetOf(headers: Record<string, string | number | undefined> | undefined): Date | null {
  if (!headers || String(headers['x-ratelimit-remaining']) !== '0') return null;
  const reset = Number(headers['x-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : null;
}

/**
 * GitHub's answers as the framework's errors: limits (primary, secondary, 429) and runs of 5xx become a wait
 * until the time GitHub gives; a 401 is a rejected credential. Anything else is thrown as it is, with a message.
 */
export function toPlatformError(error: unknown, access: PlatformAccess, client: { options: ClientOptions; credential: string }): Error {
  if (error instanceof RateLimitWait || error instanceof CredentialRejected) return error;
  const failed = error as {
    status?: number;
    message?: string;
    response?: { headers?: Record<string, string | undefined>; data?: unknown };
    headers?: Record<string, string | undefined>;
    errors?: { type?: string }[];
  };
  const headers = failed.response?.headers ?? failed.headers ?? {};
  const status = failed.status;
  // Octokit appends GitHub's documentation link to the message; the reason is before it.
  const message = (failed.message ?? String(error))
    .split('\n')[0]!
    .replace(/ - https?:\/\/\S+$/, '')
    .slice(0, 300);
  const now = access.now().getTime();
  const graphqlLimited = (failed.errors ?? (failed.response?.data as { errors?: { type?: string }[] } | undefined)?.errors ?? []).some(
    (e) => e.type === 'RATE_LIMITED',
  );
  if (status === 401) {
    return new CredentialRejected(
      `GitHub refused the ${client.credential} (401 ${message}): it was revoked, expired or mistyped. Replace it in the connector's secrets.`,
    );
  }
  if (status === 403 || status === 429 || graphqlLimited) {
    const retryAfter = Number(headers['retry-after']);
    if (Number.isFinite(retryAfter) && retryAfter >= 0 && headers['retry-after'] !== undefined) {
      return new RateLimitWait(new Date(now + retryAfter * 1000), `GitHub asked to wait ${retryAfter}s (${status ?? 'GraphQL'}: ${message})`);
    }
    const reset = limitResetOf(headers);
    if (reset) return new RateLimitWait(reset, `GitHub's rate limit is spent until ${reset.toISOString()} (${status ?? 'GraphQL'})`);
    if (status === 429 || graphqlLimited || /secondary rate|rate limit/i.test(message)) {
      // GitHub's advice without a Retry-After: wait at least a minute.
      return new RateLimitWait(new Date(now + 60_000), `GitHub's rate limit (${status ?? 'GraphQL'}: ${message}); waiting a minute`);
    }
    return new Error(
      `GitHub refused the request (403 ${message}): the ${client.credential} may lack a permission (Metadata, Issues, Pull requests, Discussions, Contents: read).`,
    );
  }
  if (status === 500 && !failed.response) {
    // Octokit reports a request that got no answer (refused, timed out, an address the outbound rules refuse) as a 500.
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? message;
    return new Error(`GitHub could not be reached: ${cause}`);
  }
  if (status !== undefined && status >= 500) {
    return new RateLimitWait(
      new Date(now + client.options.serverErrorWaitMs),
      `GitHub answered ${status} (${message}) ${client.options.retries + 1} times; trying again later`,
    );
  }
  return error instanceof Error ? error : new Error(message);
}

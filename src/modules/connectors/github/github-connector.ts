import type { ConnectorKind, PlatformAccess, UserPush } from '../connector-kind.ts';
import { DEFAULT_CLIENT_OPTIONS, createClient, toPlatformError, type ClientOptions } from './github-client.ts';
import { profilePush, type GitHubProfile } from './github-people.ts';
import { GitHubSecretsSchema, GitHubSettingsSchema, repositoriesOf, type GitHubSecrets, type GitHubSettings } from './github-settings.ts';
import { listStreams, streamPage, type StreamContext } from './github-streams.ts';
import { deliveryIdOf, eventOf, translateDelivery, verifyDelivery } from './github-webhooks.ts';

export type { GitHubSecrets, GitHubSettings } from './github-settings.ts';

async function context(settings: GitHubSettings, secrets: GitHubSecrets, access: PlatformAccess, options: ClientOptions): Promise<StreamContext> {
  return { client: await createClient(settings, secrets, access, options), settings, access, options };
}

/** The GitHub connector; `options` tunes the in-process retries of 5xx answers (tests make them instant). */
export function createGitHubConnector(overrides: Partial<ClientOptions> = {}): ConnectorKind<GitHubSettings, GitHubSecrets> {
  const options = { ...DEFAULT_CLIENT_OPTIONS, ...overrides };
  return {
    kind: 'github',
    platformName: 'GitHub',
    settingsSchema: GitHubSettingsSchema,
    secretsSchema: GitHubSecretsSchema,
    receiver: { verify: verifyDelivery, deliveryId: deliveryIdOf, eventOf, translate: translateDelivery },

    async streams(settings, secrets, access) {
      return listStreams(await context(settings, secrets, access, options));
    },

    async page(stream, checkpoint, settings, secrets, access) {
      return streamPage(await context(settings, secrets, access, options), stream, checkpoint);
    },

    async profiles(platformUserIds, settings, secrets, access) {
      const ctx = await context(settings, secrets, access, options);
      const users: UserPush[] = [];
      // Kept bots (`bot:<id>`) have no profile worth reading.
      for (const id of platformUserIds.filter((id) => /^[0-9]+$/.test(id))) {
        try {
          const { data } = await ctx.client.octokit.request('GET /user/{account_id}', { account_id: Number(id) });
          const push = profilePush(data as GitHubProfile, settings);
          if (push) users.push(push);
        } catch (error) {
          // A deleted account has no profile any more; its records stay as they are.
          if ((error as { status?: number }).status === 404) continue;
          throw toPlatformError(error, access, { options, credential: ctx.client.credential });
        }
      }
      return users;
    },

    async test(settings, secrets, access) {
      const ctx = await context(settings, secrets, access, options);
      const fail = (error: unknown) => toPlatformError(error, access, { options, credential: ctx.client.credential });
      let who: string;
      if ('token' in secrets) {
        try {
          const { data } = await ctx.client.octokit.request('GET /user');
          who = `token works (as ${data.login})`;
        } catch (error) {
          throw fail(error);
        }
      } else {
        who = `GitHub App ${secrets.appId} works (installation ${settings.installationId})`;
      }
      let repositories = repositoriesOf(settings);
      const listed = repositories === null;
      if (!repositories) {
        const streams = await listStreams(ctx);
        repositories = [...new Set(streams.map((stream) => stream.slice(0, stream.lastIndexOf(':'))))];
        if (repositories.length === 0)
          throw new Error(`${who}, but the organization ${(settings as { organization: string }).organization} has no repository it can read`);
      }
      const unreadable: string[] = [];
      // An organization's repositories were just listed with the credential: each is readable.
      for (const repository of listed ? [] : repositories) {
        try {
          await ctx.client.octokit.request('GET /repos/{owner}/{repo}', { owner: repository.split('/')[0]!, repo: repository.split('/')[1]! });
        } catch (error) {
          const status = (error as { status?: number }).status;
          if (status === 404 || status === 403)
            unreadable.push(`${repository} (${status === 404 ? 'not found or not shared with the credential' : 'refused'})`);
          else throw fail(error);
        }
      }
      if (unreadable.length > 0)
        throw new Error(`${who}, but ${unreadable.length} of ${repositories.length} repositories cannot be read: ${unreadable.join(', ')}`);
      const shown = repositories.length > 10 ? `${repositories.slice(0, 10).join(', ')}, ...` : repositories.join(', ');
      return `${who}; ${repositories.length} ${repositories.length === 1 ? 'repository' : 'repositories'} readable: ${shown}`;
    },
  };
}

export const githubConnector = createGitHubConnector();

import Type, { type Static } from 'typebox';

const Repository = Type.String({
  pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$',
  description: 'owner/name',
});

const Common = {
  apiUrl: Type.Optional(
    Type.String({
      format: 'uri',
      description: 'REST API root: https://api.github.com (default), or https://<host>/api/v3 for GitHub Enterprise Server',
    }),
  ),
  installationId: Type.Optional(Type.Integer({ minimum: 1, description: 'The GitHub App installation (with the appId and privateKey secrets)' })),
  commits: Type.Optional(Type.Boolean({ description: 'Record the commits of push deliveries (default false)' })),
  bots: Type.Optional(
    Type.Union([Type.Literal('skip'), Type.Literal('keep')], {
      description:
        "Bot accounts (dependabot[bot], ...): 'skip' (default) leaves their records out; 'keep' stores them as people of their own, never matched to anyone",
    }),
  ),
};

export const GitHubSettingsSchema = Type.Union(
  [
    Type.Object(
      { repositories: Type.Array(Repository, { minItems: 1, maxItems: 500, uniqueItems: true, description: 'The repositories followed' }), ...Common },
      { additionalProperties: false },
    ),
    Type.Object(
      { organization: Type.String({ pattern: '^[A-Za-z0-9-]+$', description: 'Follow every repository of this organization' }), ...Common },
      { additionalProperties: false },
    ),
  ],
  { description: 'Either `repositories` or `organization`' },
);

export type GitHubSettings = Static<typeof GitHubSettingsSchema>;

const WebhookSecret = Type.Optional(Type.String({ minLength: 1, description: "The webhook's secret, as entered in GitHub's webhook settings" }));

export const GitHubSecretsSchema = Type.Union(
  [
    Type.Object(
      { token: Type.String({ minLength: 1, description: 'A fine-grained personal access token' }), webhookSecret: WebhookSecret },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        appId: Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]+$' })], { description: "The GitHub App's ID" }),
        privateKey: Type.String({ minLength: 1, description: "The GitHub App's private key (PEM)" }),
        webhookSecret: WebhookSecret,
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'Either `token`, or `appId` and `privateKey` (a GitHub App, with settings.installationId); and `webhookSecret`' },
);

export type GitHubSecrets = Static<typeof GitHubSecretsSchema>;

export const DEFAULT_API_URL = 'https://api.github.com';

export function apiUrlOf(settings: GitHubSettings): string {
  return (settings.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
}

/** GitHub's GraphQL endpoint next to its REST root: /graphql on github.com, /api/graphql on Enterprise Server (/api/v3). */
export function graphqlUrlOf(settings: GitHubSettings): string {
  const api = apiUrlOf(settings);
  return api.endsWith('/api/v3') ? `${api.slice(0, -'/v3'.length)}/graphql` : `${api}/graphql`;
}

export function repositoriesOf(settings: GitHubSettings): string[] | null {
  return 'repositories' in settings ? settings.repositories : null;
}

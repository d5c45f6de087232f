import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Item } from '../../http/schemas.ts';

const Settings = Type.Unknown({ description: "The kind's settings (its `settingsSchema`, GET /api/v2/admin/connector-kinds)" });
const Secrets = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "The kind's secrets by name (its `secretsSchema`; `webhookSecret` signs the receiver's deliveries). Write-only: answers name the secrets set, never their values.",
  },
);

export const Connector = component(
  'Connector',
  Type.Object({
    id: Type.String({ description: "sig_N: the connector's source" }),
    sourceId: Type.Integer({ description: 'The N of sig_N, as the core pushes and data-available take it' }),
    kind: Type.String({ description: 'A kind of GET /api/v2/admin/connector-kinds (`github`, `discourse`, `slack`, ...)' }),
    name: Type.String({ description: "The source's name" }),
    settings: Settings,
    secrets: Type.Array(Type.String(), { description: 'The names of the secrets set (never their values)' }),
    receiverUrl: Nullable(
      Type.String({
        description:
          "Where the platform sends its webhooks (the key in it is public; every delivery's signature is checked); null for a platform without webhooks, read only by syncs",
      }),
    ),
    state: Type.Enum(['active', 'backfilling', 'waiting', 'paused', 'failed']),
    reason: Nullable(Type.String({ description: 'Why it waits or failed, or why the last sync attempt failed' })),
    waitingUntil: Nullable(Type.String({ format: 'date-time', description: "When a waiting connector goes on (the platform's rate limit)" })),
    streams: Type.Array(
      Type.Object({
        stream: Type.String(),
        done: Type.Boolean({ description: 'Caught up: later syncs read what is new' }),
        records: Type.Integer({
          description: "The platform's records this stream has read (stars, issues, posts; not the pushes they made): comparable with `total`",
        }),
        total: Nullable(Type.Integer({ description: 'Records the platform says exist, when it says' })),
        updatedAt: Type.String({ format: 'date-time' }),
      }),
    ),
    lastEventAt: Nullable(Type.String({ format: 'date-time', description: 'The last delivery received' })),
    lastSyncAt: Nullable(Type.String({ format: 'date-time', description: 'The end of the last complete sync' })),
    last24h: Type.Object({
      deliveries: Type.Integer({ description: 'Deliveries stored in the current hour and the 23 before (not redeliveries)' }),
      records: Type.Integer({ description: 'Pushes stored into the source (users and activities, by deliveries, syncs and profiles) in the same hours' }),
    }),
    createdAt: Type.String({ format: 'date-time' }),
  }),
);

export const ConnectorKindInfo = component(
  'ConnectorKind',
  Type.Object({
    kind: Type.String(),
    platformName: Type.String(),
    settingsSchema: Type.Unknown({ description: 'JSON Schema of the settings' }),
    secretsSchema: Type.Unknown({ description: 'JSON Schema of the secrets' }),
    receives: Type.Boolean({ description: "The platform sends webhooks to a connector's receiver; when false it is read only by syncs" }),
    platformIssuesWebhookSecret: Type.Boolean({
      description:
        "The platform issues the receiver's signing secret (Slack's app Signing Secret): give that one as `webhookSecret`; for the others, choose one and set it in the platform's webhook settings",
    }),
  }),
);

export const NewConnectorBody = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 50, description: 'A kind of GET /api/v2/admin/connector-kinds' }),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'The source\'s name (default: the platform\'s, numbered when taken: "GitHub 2")' })),
    settings: Settings,
    secrets: Secrets,
  },
  { additionalProperties: false, required: ['kind', 'settings', 'secrets'] },
);

export const ConnectorChangesBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    settings: Type.Optional(Settings),
    secrets: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Secrets to set, by name (a rotation); the others are kept. Setting secrets of a failed connector resumes it.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ConnectorTestBody = Type.Object(
  { kind: Type.String({ minLength: 1, maxLength: 50 }), settings: Settings, secrets: Secrets },
  { additionalProperties: false, required: ['kind', 'settings', 'secrets'] },
);

export const ConnectorParams = Type.Object({ id: Type.String({ description: 'sig_N' }) });
export const ReceiverParams = Type.Object({ kind: Type.String({ maxLength: 50 }), key: Type.String({ maxLength: 200 }) });

export const ConnectorResponse = v2Item(Connector);
export const ConnectorsResponse = v2Item(Type.Array(Connector));
export const ConnectorKindsResponse = v2Item(Type.Array(ConnectorKindInfo));
export const ConnectorTestResponse = v2Item(Type.Object({ ok: Type.Boolean(), message: Type.String({ description: 'What was found, or what is wrong' }) }));
export const ConnectorSyncResponse = v2Item(
  Type.Object({ jobId: Type.Integer({ description: 'The sync job (`hearth jobs show`)' }), created: Type.Boolean() }),
);
export const ReceivedResponse = Type.Object({
  received: Type.Literal(true),
  duplicate: Type.Boolean({ description: 'The delivery was stored before (a redelivery)' }),
});
export const ReceiverAnswer = Type.Record(Type.String(), Type.String(), {
  description: "A handshake answered by the connector instead of stored: Slack's URL verification gets `{challenge}` back",
});
export const ReceiverRefused = Type.Object({ status: Type.Literal('unauthorized'), reason: Type.String() });

import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { KIND_NAMES } from './webhook-events.ts';

const EventKind = Type.Enum([...KIND_NAMES]);
const FilterEntity = Type.Enum(['contact', 'activity', 'organization']);
const LightFilter = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "A lightFilter expression ({type: and|or, clauses}), as the lists take it, evaluated against the event's record when the event is fanned out " +
      '(GET /api/v2/filter-fields?entity=contact|activity|organization lists the fields).',
  },
);

const WebhookFields = {
  id: Type.String({ description: 'wh_N' }),
  url: Type.String(),
  events: Type.Array(EventKind),
  description: Nullable(Type.String()),
  lightFilter: Nullable(LightFilter),
  filterEntity: Nullable(FilterEntity),
  enabled: Type.Boolean(),
  disabledAt: Nullable(Type.String({ format: 'date-time' })),
  disabledReason: Nullable(Type.String()),
  failingSince: Nullable(Type.String({ format: 'date-time', description: 'The first failed attempt since the last success' })),
  previousSecretUntil: Nullable(Type.String({ format: 'date-time', description: 'Until when the secret replaced by the last rotation signs too' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};
export const Webhook = component('Webhook', Type.Object(WebhookFields));

export const WebhookWithSecret = component(
  'WebhookWithSecret',
  Type.Object({
    ...WebhookFields,
    secret: Type.String({ description: '`whsec_<base64 key>`: shown when the webhook is created and when its secret is rotated, not afterwards' }),
  }),
);

const DeliveryFields = {
  id: Type.String({ description: 'whd_N' }),
  webhookId: Type.String(),
  messageId: Type.String({ description: 'The `webhook-id` header: the same for every attempt, redelivery and replay of the event' }),
  event: EventKind,
  occurredAt: Type.String({ format: 'date-time' }),
  status: Type.Enum(['pending', 'delivered', 'failed']),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
  expiresAt: Type.String({ format: 'date-time', description: 'After this, a failed attempt is the last' }),
  lastStatus: Nullable(Type.Integer({ description: "The receiver's last HTTP status" })),
  lastError: Nullable(Type.String()),
  deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
};
export const WebhookDelivery = component('WebhookDelivery', Type.Object(DeliveryFields));

export const WebhookDeliveryDetail = component(
  'WebhookDeliveryDetail',
  Type.Object({
    ...DeliveryFields,
    payload: Nullable(Type.String({ description: 'The body every attempt sends' })),
    attemptLog: Type.Array(
      Type.Object({
        attempt: Type.Integer(),
        attemptedAt: Type.String({ format: 'date-time' }),
        responseStatus: Nullable(Type.Integer()),
        error: Nullable(Type.String()),
        durationMs: Type.Integer(),
      }),
    ),
  }),
);

export const NewWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000 }),
    events: Type.Array(Type.String(), { minItems: 1, maxItems: 20, description: `Event kinds: ${KIND_NAMES.join(', ')}` }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    lightFilter: Type.Optional(LightFilter),
    filterEntity: Type.Optional(Type.String({ description: 'What the filter is about, when the events do not say: contact, activity or organization' })),
  },
  { additionalProperties: false },
);

export const WebhookChangesBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    events: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 20 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    lightFilter: Type.Optional(Nullable(LightFilter)),
    filterEntity: Type.Optional(Type.String()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const RotateBody = Type.Object(
  {
    keepPreviousHours: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 720, description: 'How long the replaced secret signs too (default 24; 0: not at all)' }),
    ),
  },
  { additionalProperties: false },
);

export const ReplayBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: "Every event of the webhook's kinds that occurred since this time…" }),
    until: Type.Optional(Type.String({ format: 'date-time', description: '…and until this one (default: now)' })),
  },
  { additionalProperties: false },
);

export const WebhookParams = Type.Object({ id: Type.String({ description: 'wh_N' }) });
export const DeliveryParams = Type.Object({ id: Type.String({ description: 'wh_N' }), deliveryId: Type.String({ description: 'whd_N' }) });
export const DeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(['pending', 'delivered', 'failed'])),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    before: Type.Optional(Type.String({ description: 'whd_N: the page after this delivery (newest first)' })),
  },
  { additionalProperties: false },
);

export const WebhookResponse = v2Item(Webhook);
export const WebhookSecretResponse = v2Item(WebhookWithSecret);
export const WebhooksResponse = v2Item(Type.Array(Webhook));
export const DeliveriesResponse = v2Item(Type.Array(WebhookDelivery));
export const DeliveryResponse = v2Item(WebhookDelivery);
export const DeliveryDetailResponse = v2Item(WebhookDeliveryDetail);
export const ReplayResponse = v2Item(
  Type.Object({ webhookId: Type.String(), since: Type.String({ format: 'date-time' }), deliveries: Type.Integer({ description: 'Deliveries made' }) }),
);

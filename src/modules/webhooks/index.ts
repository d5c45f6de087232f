// The face of the webhooks module: what the rest of the code uses of it. Its other files are private.
export { webhookRoutes } from './webhook.v2.routes.ts';
export { createWebhookService, deliveryBackoff, RETRY_WINDOW_MS, type WebhookService } from './webhook.service.ts';
export { EVENT_KINDS, KIND_NAMES } from './webhook-events.ts';
export { signature, signedHeaders, verify } from './webhook-signing.ts';
export { webhookTx, type WebhookTxService } from './webhook-tx.service.ts';

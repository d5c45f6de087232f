import { contextOf, type HearthApp } from '../../http/types.ts';
import {
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryDetailResponse,
  DeliveryParams,
  DeliveryResponse,
  NewWebhookBody,
  ReplayBody,
  ReplayResponse,
  RotateBody,
  WebhookChangesBody,
  WebhookParams,
  WebhookResponse,
  WebhookSecretResponse,
  WebhooksResponse,
} from './webhook.schemas.ts';
import { parseDeliveryId, parseSubscriptionId, type WebhookService } from './webhook.service.ts';
import { notFound } from '../../core/errors.ts';
import { formatId } from '../../core/ids.ts';

const admin = { auth: { all: ['admin' as const] } };

export function webhookRoutes(app: HearthApp, services: { webhooks: WebhookService }) {
  const { webhooks } = services;

  app.post(
    '/api/v2/admin/webhooks',
    {
      config: admin,
      schema: {
        operationId: 'createWebhook',
        tags: ['admin'],
        summary: 'Subscribe a URL to events',
        description: 'Signed as Standard Webhooks; the answer carries the signing secret (shown again only by a rotation). docs/webhooks.md.',
        body: NewWebhookBody,
        response: { 201: WebhookSecretResponse },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await webhooks.create(contextOf(request), request.body) }),
  );

  app.get(
    '/api/v2/admin/webhooks',
    { config: admin, schema: { operationId: 'listWebhooks', tags: ['admin'], summary: 'List webhooks', response: { 200: WebhooksResponse } } },
    async (request) => ({ success: true as const, data: await webhooks.list(contextOf(request).communityId) }),
  );

  app.get(
    '/api/v2/admin/webhooks/:id',
    {
      config: admin,
      schema: { operationId: 'getWebhook', tags: ['admin'], summary: 'Get a webhook', params: WebhookParams, response: { 200: WebhookResponse } },
    },
    async (request) => ({ success: true as const, data: await webhooks.get(contextOf(request).communityId, parseSubscriptionId(request.params.id)) }),
  );

  app.patch(
    '/api/v2/admin/webhooks/:id',
    {
      config: admin,
      schema: {
        operationId: 'updateWebhook',
        tags: ['admin'],
        summary: "Change a webhook's URL, events, description or filter",
        params: WebhookParams,
        body: WebhookChangesBody,
        response: { 200: WebhookResponse },
      },
    },
    async (request) => ({ success: true as const, data: await webhooks.update(contextOf(request), parseSubscriptionId(request.params.id), request.body) }),
  );

  app.delete(
    '/api/v2/admin/webhooks/:id',
    {
      config: admin,
      schema: {
        operationId: 'deleteWebhook',
        tags: ['admin'],
        summary: 'Remove a webhook and its deliveries',
        params: WebhookParams,
        response: { 200: WebhookResponse },
      },
    },
    async (request) => ({ success: true as const, data: await webhooks.remove(contextOf(request), parseSubscriptionId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/webhooks/:id/disable',
    {
      config: admin,
      schema: {
        operationId: 'disableWebhook',
        tags: ['admin'],
        summary: 'Stop delivering (events are still recorded for a replay)',
        params: WebhookParams,
        response: { 200: WebhookResponse },
      },
    },
    async (request) => ({ success: true as const, data: await webhooks.disable(contextOf(request), parseSubscriptionId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/webhooks/:id/enable',
    {
      config: admin,
      schema: {
        operationId: 'enableWebhook',
        tags: ['admin'],
        summary: 'Deliver again (what is pending is tried at once)',
        params: WebhookParams,
        response: { 200: WebhookResponse },
      },
    },
    async (request) => ({ success: true as const, data: await webhooks.enable(contextOf(request), parseSubscriptionId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/webhooks/:id/rotate-secret',
    {
      config: admin,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['admin'],
        summary: 'A new signing secret; the old one signs too for a while',
        params: WebhookParams,
        body: RotateBody,
        response: { 200: WebhookSecretResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await webhooks.rotateSecret(contextOf(request), parseSubscriptionId(request.params.id), request.body?.keepPreviousHours),
    }),
  );

  app.get(
    '/api/v2/admin/webhooks/:id/deliveries',
    {
      config: admin,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['admin'],
        summary: "A webhook's deliveries, newest first",
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await webhooks.deliveries(contextOf(request).communityId, parseSubscriptionId(request.params.id), request.query),
    }),
  );

  app.get(
    '/api/v2/admin/webhooks/:id/deliveries/:deliveryId',
    {
      config: admin,
      schema: {
        operationId: 'getWebhookDelivery',
        tags: ['admin'],
        summary: 'A delivery, its attempts and its body',
        params: DeliveryParams,
        response: { 200: DeliveryDetailResponse },
      },
    },
    async (request) => {
      const id = parseSubscriptionId(request.params.id);
      const delivery = await webhooks.delivery(contextOf(request).communityId, parseDeliveryId(request.params.deliveryId));
      const webhookId = formatId('webhook', id);
      if (delivery.webhookId !== webhookId) throw notFound('delivery_not_found', `no delivery ${request.params.deliveryId} of ${webhookId}`);
      return { success: true as const, data: delivery };
    },
  );

  app.post(
    '/api/v2/admin/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: admin,
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags: ['admin'],
        summary: "Send a delivery's event again (a new delivery, due now)",
        params: DeliveryParams,
        response: { 202: DeliveryResponse },
      },
    },
    async (request, reply) => {
      const id = parseSubscriptionId(request.params.id);
      const context = contextOf(request);
      const deliveryId = parseDeliveryId(request.params.deliveryId);
      const existing = await webhooks.delivery(context.communityId, deliveryId);
      const webhookId = formatId('webhook', id);
      if (existing.webhookId !== webhookId) throw notFound('delivery_not_found', `no delivery ${formatId('delivery', deliveryId)} of ${webhookId}`);
      return reply.code(202).send({ success: true as const, data: await webhooks.redeliver(context, deliveryId) });
    },
  );

  app.post(
    '/api/v2/admin/webhooks/:id/replay',
    {
      config: admin,
      schema: {
        operationId: 'replayWebhook',
        tags: ['admin'],
        summary: "Deliver again every event of the webhook's kinds since a time",
        params: WebhookParams,
        body: ReplayBody,
        response: { 202: ReplayResponse },
      },
    },
    async (request, reply) => {
      const { since, until } = request.body;
      return reply.code(202).send({
        success: true as const,
        data: await webhooks.replay(
          contextOf(request),
          parseSubscriptionId(request.params.id),
          new Date(since),
          until === undefined ? undefined : new Date(until),
        ),
      });
    },
  );
}

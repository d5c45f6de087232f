import { contextOf, type HearthApp } from '../../http/types.ts';
import type { Headers } from './connector-kind.ts';
import {
  ConnectorChangesBody,
  ConnectorKindsResponse,
  ConnectorParams,
  ConnectorResponse,
  ConnectorsResponse,
  ConnectorSyncResponse,
  ConnectorTestBody,
  ConnectorTestResponse,
  NewConnectorBody,
  ReceivedResponse,
  ReceiverAnswer,
  ReceiverParams,
  ReceiverRefused,
} from './connector.schemas.ts';
import { parseConnectorId, type ConnectorService } from './connector.service.ts';

const admin = { auth: { all: ['admin' as const] } };
const tags = ['admin'];

/** The largest delivery GitHub sends (its documented cap on webhook payloads). */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

export function connectorRoutes(app: HearthApp, services: { connectors: ConnectorService }) {
  const { connectors } = services;

  app.get(
    '/api/v2/admin/connector-kinds',
    {
      config: admin,
      schema: {
        operationId: 'listConnectorKinds',
        tags,
        summary: 'The platforms a connector can be made for, with their settings and secrets',
        response: { 200: ConnectorKindsResponse },
      },
    },
    async () => ({ success: true as const, data: connectors.kinds() }),
  );

  app.get(
    '/api/v2/admin/connectors',
    { config: admin, schema: { operationId: 'listConnectors', tags, summary: 'List connectors with their state', response: { 200: ConnectorsResponse } } },
    async (request) => ({ success: true as const, data: await connectors.list(contextOf(request).communityId) }),
  );

  app.post(
    '/api/v2/admin/connectors',
    {
      config: admin,
      schema: {
        operationId: 'createConnector',
        tags,
        summary: 'Connect a platform: a source, its receiver, and a first sync (the backfill)',
        description:
          "Secrets are stored encrypted and never answered. The answer's `receiverUrl` is where the platform's webhooks go, signed with the `webhookSecret` given. docs/connectors.md.",
        body: NewConnectorBody,
        response: { 201: ConnectorResponse },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await connectors.create(contextOf(request), request.body) }),
  );

  app.post(
    '/api/v2/admin/connectors/test',
    {
      config: admin,
      schema: {
        operationId: 'testNewConnector',
        tags,
        summary: 'Try a credential and settings against the platform (nothing is stored)',
        body: ConnectorTestBody,
        response: { 200: ConnectorTestResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.test(contextOf(request), request.body) }),
  );

  app.get(
    '/api/v2/admin/connectors/:id',
    { config: admin, schema: { operationId: 'getConnector', tags, summary: 'Get a connector', params: ConnectorParams, response: { 200: ConnectorResponse } } },
    async (request) => ({ success: true as const, data: await connectors.get(contextOf(request).communityId, parseConnectorId(request.params.id)) }),
  );

  app.patch(
    '/api/v2/admin/connectors/:id',
    {
      config: admin,
      schema: {
        operationId: 'updateConnector',
        tags,
        summary: 'Rename a connector, change its settings, or set secrets by name (rotation)',
        params: ConnectorParams,
        body: ConnectorChangesBody,
        response: { 200: ConnectorResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.update(contextOf(request), parseConnectorId(request.params.id), request.body) }),
  );

  app.delete(
    '/api/v2/admin/connectors/:id',
    {
      config: admin,
      schema: {
        operationId: 'deleteConnector',
        tags,
        summary: 'Remove a connector (its source and data stay)',
        params: ConnectorParams,
        response: { 200: ConnectorResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.remove(contextOf(request), parseConnectorId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/connectors/:id/test',
    {
      config: admin,
      schema: {
        operationId: 'testConnector',
        tags,
        summary: "Try a connector's stored credential and settings",
        params: ConnectorParams,
        response: { 200: ConnectorTestResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.testExisting(contextOf(request), parseConnectorId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/connectors/:id/sync',
    {
      config: admin,
      schema: {
        operationId: 'syncConnector',
        tags,
        summary: 'Sync now (as a job; the one queued or running is answered)',
        params: ConnectorParams,
        response: { 200: ConnectorSyncResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.syncNow(contextOf(request), parseConnectorId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/connectors/:id/pause',
    {
      config: admin,
      schema: {
        operationId: 'pauseConnector',
        tags,
        summary: 'Pause: no sync, deliveries stored but not processed until resumed',
        params: ConnectorParams,
        response: { 200: ConnectorResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.pause(contextOf(request), parseConnectorId(request.params.id)) }),
  );

  app.post(
    '/api/v2/admin/connectors/:id/resume',
    {
      config: admin,
      schema: {
        operationId: 'resumeConnector',
        tags,
        summary: 'Resume a paused, failed or waiting connector (a sync starts)',
        params: ConnectorParams,
        response: { 200: ConnectorResponse },
      },
    },
    async (request) => ({ success: true as const, data: await connectors.resume(contextOf(request), parseConnectorId(request.params.id)) }),
  );
}

/**
 * The public receiver of platforms' webhooks. Its body is kept as bytes (a parser of its own, in a scope of
 * its own): the signature is checked over exactly what was sent, before anything is parsed.
 */
export function receiverRoutes(app: HearthApp, services: { connectors: ConnectorService }) {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_DELIVERY_BYTES }, (_request, body, done) => done(null, body));
    scope.post(
      '/api/v2/receivers/:kind/:key',
      {
        bodyLimit: MAX_DELIVERY_BYTES,
        config: { auth: 'public', rawBody: true, receiverLimits: true },
        schema: {
          operationId: 'receiveConnectorDelivery',
          tags: ['core'],
          summary: "A platform's webhook delivery (GitHub, Discourse, Slack)",
          description:
            "The address is a connector's `receiverUrl`. The signature (GitHub's `X-Hub-Signature-256`, Discourse's `X-Discourse-Event-Signature`, " +
            "Slack's `X-Slack-Signature` over its request timestamp and the body) " +
            "is checked over the raw body with the connector's `webhookSecret`; a delivery is stored once by its delivery ID and processed in the background. " +
            "The body is JSON, or a form whose `payload` field is the JSON (GitHub's `application/x-www-form-urlencoded`; the signature is over the form). " +
            '401 for a missing or wrong signature (nothing is stored), 404 for an unknown address, 400 for a body that is not JSON. ' +
            "A handshake the platform expects an answer to (Slack's `url_verification`) is answered 200 with what it asks for (`{challenge}`) and not stored.",
          params: ReceiverParams,
          response: { 200: ReceiverAnswer, 202: ReceivedResponse, 401: ReceiverRefused },
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const params = request.params as { kind: string; key: string };
        const received = await services.connectors.receive(params.kind, params.key, raw, request.headers as Headers);
        if (!received.ok) return reply.code(401).send({ status: 'unauthorized' as const, reason: received.reason });
        if ('answer' in received) return reply.code(200).send(received.answer);
        return reply.code(202).send({ received: true as const, duplicate: received.duplicate });
      },
    );
  });
}

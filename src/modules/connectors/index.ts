// The face of the connectors module: what the rest of the code uses of it. Its other files are private.
export { connectorRoutes, receiverRoutes } from './connector.v2.routes.ts';
export { createConnectorService, DEFAULT_SYNC_INTERVAL_MS, parseConnectorId, type ConnectorService } from './connector.service.ts';
export { CONNECTOR_KINDS } from './connector-kinds.ts';
export {
  CredentialRejected,
  RateLimitWait,
  type ConnectorKind,
  type Delivery,
  type Headers,
  type PlatformAccess,
  type StreamPage,
  type Translation,
} from './connector-kind.ts';

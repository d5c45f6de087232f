// The face of the ingestion module: what the rest of the code uses of it. Its other files are private.
export { ingestionRoutes } from './ingestion.routes.ts';
export { ActivityPushBody, UserPushBody } from './ingestion.schemas.ts';
export { createIngestionService, type IngestionService } from './ingestion.service.ts';
export { organizationNameOf } from './user-push.ts';

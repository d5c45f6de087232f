// The face of the objects module: what the rest of the code uses of it. Its other files are private.
export { objectAdminRoutes } from './object-admin.v2.routes.ts';
export { ObjectRecord } from './object-admin.schemas.ts';
export { type AssocInput, createObjectTypeAdminService } from './object-type-admin.service.ts';
export { createObjectTypeService } from './object-type.service.ts';
export { createObjectUpsertService, type ObjectRecordInput, ObjectUpsertRejected, type ObjectUpsertService } from './object-upsert.service.ts';
export { objectWriteRoutes } from './object-write.v2.routes.ts';
export { createObjectWriteService } from './object-write.service.ts';
export { OBJECT_FILTERS } from './object.filters.ts';
export { objectRoutes } from './object-read.v2.routes.ts';
export { createObjectService } from './object-read.service.ts';
export { objectTx, type ObjectTxService } from './object-tx.service.ts';

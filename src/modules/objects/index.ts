// The face of the objects module: what the rest of the code uses of it. Its other files are private.
export { objectAdminRoutes } from './object-admin.routes.ts';
export { ObjectRecord } from './object-admin.schemas.ts';
export { type AssocInput, createObjectTypeAdminService } from './object-type-admin.service.ts';
export { createObjectTypeService } from './object-type.service.ts';
export { createObjectUpsertService, type ObjectRecordInput, ObjectUpsertRejected, type ObjectUpsertService } from './object-upsert.service.ts';
export { objectWriteRoutes } from './object-write.routes.ts';
export { createObjectWriteService } from './object-write.service.ts';
export { OBJECT_FILTERS } from './object.filters.ts';
export { objectRoutes } from './object.routes.ts';
export { createObjectService } from './object.service.ts';
export { objectTx, type ObjectTxService } from './object-tx.service.ts';

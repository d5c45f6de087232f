// The face of the prospector module: what the rest of the code uses of it. Its other files are private.
export { prospectorAdminRoutes } from './prospector-admin.v2.routes.ts';
export { PROSPECTOR_COMPANY_FILTERS } from './prospector-company.filters.ts';
export { PROSPECTOR_CONTACT_FILTERS } from './prospector-contact.filters.ts';
export {
  createProspectorImportService,
  ProspectorImportRejected,
  type CheckpointRow,
  type ChunkCheckpoint,
  type ImportBody,
  type ImportCounts,
  type ImportFault,
  type ImportKind,
  type NamedRecord,
  type ProspectorImportService,
} from './prospector-import.service.ts';
export { CompanyRecordSchema, ContactRecordSchema } from './prospector-records.ts';
export { prospectorRoutes } from './prospector.v2.routes.ts';
export { createProspectorService, type ProspectorService } from './prospector.service.ts';
export { prospectorTx, type ProspectorTxService } from './prospector-tx.service.ts';

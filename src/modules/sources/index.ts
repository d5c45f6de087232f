// The face of the sources module: what the rest of the code uses of it. Its other files are private.
export { sourceRoutes } from './source.v2.routes.ts';
export { createSourceService } from './source.service.ts';
export { sourceTx, type SourceTxService } from './source-tx.service.ts';

// The face of the segments module: what the rest of the code uses of it. Its other files are private.
export { segmentWriteRoutes } from './segment-write.v2.routes.ts';
export { createSegmentWriteService } from './segment-write.service.ts';
export { segmentsField } from './segment.filters.ts';
export { type SegmentRef } from './segment-read.repository.ts';
export { segmentRoutes } from './segment-read.routes.ts';
export { createSegmentService } from './segment-read.service.ts';
export { segmentTx, type SegmentTxService } from './segment-tx.service.ts';

// What other modules do with segments inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { findSegment, lockSegment, segmentsOf } from './segment-read.repository.ts';

export const segmentTx = { findSegment, lockSegment, segmentsOf };
export type SegmentTxService = typeof segmentTx;

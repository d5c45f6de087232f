// What other modules do with activities inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { findOrCreateSubSource, findOrCreateSubSources, threadLinks, threadLoops, upsertActivities, upsertActivity } from './activity-write.repository.ts';

export const activityTx = { findOrCreateSubSource, findOrCreateSubSources, threadLinks, threadLoops, upsertActivities, upsertActivity };
export type ActivityTxService = typeof activityTx;

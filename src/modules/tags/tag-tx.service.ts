// What other modules do with tags inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { assignTags, resolveTagRefs, unassignTags } from './tag-assignment.service.ts';
import { tagIdsOf } from './tag.repository.ts';

export const tagTx = { tagIdsOf, resolveTagRefs, assignTags, unassignTags };
export type TagTxService = typeof tagTx;

// What other modules do with communities inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { linkAppUserContact } from './community.repository.ts';

export const communityTx = { linkAppUserContact };
export type CommunityTxService = typeof communityTx;

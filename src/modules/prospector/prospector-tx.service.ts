// What other modules do with prospector inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { titleCounts } from './prospector-contact.repository.ts';

export const prospectorTx = { titleCounts };
export type ProspectorTxService = typeof prospectorTx;

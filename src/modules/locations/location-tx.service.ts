// What other modules do with locations inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { moveMembers, placesOf } from './location.repository.ts';

export const locationTx = { moveMembers, placesOf };
export type LocationTxService = typeof locationTx;

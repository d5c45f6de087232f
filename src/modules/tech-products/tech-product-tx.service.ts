// What other modules do with tech-products inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { catalogSpellings } from './tech-product.repository.ts';

export const techProductTx = { catalogSpellings };
export type TechProductTxService = typeof techProductTx;

// What other modules do with audit inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { auditEntries, recordWrite, recordWrites } from './audit.repository.ts';

export const auditTx = { auditEntries, recordWrite, recordWrites };
export type AuditTxService = typeof auditTx;

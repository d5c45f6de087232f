// What other modules do with contacts inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { sparkDraftsOf } from './contact-spark-drafts.ts';
import {
  findContactState,
  lockedContactStates,
  insertContact,
  insertContacts,
  contactInserts,
  refreshActivityStats,
  updateContact,
  contactUpdates,
} from './contact-write.repository.ts';

export const contactTx = {
  findContactState,
  lockedContactStates,
  insertContact,
  insertContacts,
  contactInserts,
  refreshActivityStats,
  updateContact,
  contactUpdates,
  sparkDraftsOf,
};
export type ContactTxService = typeof contactTx;

// What other modules do with company-updates inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { findParent } from './company-update.service.ts';
import { closeOpeningsNotListed, upsertJobOpenings, upsertNews } from './company-update.repository.ts';

export const companyUpdateTx = { closeOpeningsNotListed, upsertJobOpenings, upsertNews, findParent };
export type CompanyUpdateTxService = typeof companyUpdateTx;

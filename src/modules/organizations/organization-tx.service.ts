// What other modules do with organizations inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import {
  findOnlyOrganizationNamed,
  findOrganization,
  findOrganizationByDomain,
  insertOrganization,
  organizationsByDomains,
  organizationsNamed,
  insertOrganizations,
  memberCountChanges,
  refreshMemberCounts,
} from './organization-write.repository.ts';

export const organizationTx = {
  findOnlyOrganizationNamed,
  findOrganization,
  findOrganizationByDomain,
  insertOrganization,
  organizationsByDomains,
  organizationsNamed,
  insertOrganizations,
  memberCountChanges,
  refreshMemberCounts,
};
export type OrganizationTxService = typeof organizationTx;

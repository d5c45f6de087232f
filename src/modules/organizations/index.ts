// The face of the organizations module: what the rest of the code uses of it. Its other files are private.
export { isPersonalMailDomain, registrableDomain } from './domains.ts';
export { organizationReadRoutes } from './organization-read.v2.routes.ts';
export { createOrganizationReadService } from './organization-read.service.ts';
export { createOrganizationUpsertService, type OrganizationUpsertService } from './organization-upsert.service.ts';
export { ORGANIZATION_FILTERS } from './organization.filters.ts';
export { type FoundOrganization, type OrganizationsNamed } from './organization-write.repository.ts';
export { organizationRoutes } from './organization-write.core.routes.ts';
export { LIST_COLS as ORGANIZATION_LIST_COLS, SourceUpsertBody } from './organization.schemas.ts';
export { organizationTx, type OrganizationTxService } from './organization-tx.service.ts';

// The face of the company updates module (job openings and news): what the rest of the code uses of it.
export { JOB_OPENING_FILTERS, NEWS_FILTERS } from './company-update.filters.ts';
export { companyUpdateRoutes } from './company-update.v2.routes.ts';
export { createCompanyUpdateService, type CompanyUpdateService } from './company-update.service.ts';
export { type NewsItem, type Parent } from './company-update.repository.ts';
export { companyUpdateTx, type CompanyUpdateTxService } from './company-update-tx.service.ts';

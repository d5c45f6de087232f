// The face of the company updates module (job openings and news): what the rest of the code uses of it.
export { JOB_OPENING_FILTERS, NEWS_FILTERS } from './company-update.filters.ts';
export { companyUpdateRoutes } from './company-update.routes.ts';
export { createCompanyUpdateService, type CompanyUpdateService, findParent } from './company-update.service.ts';
export { closeOpeningsNotListed, upsertJobOpenings, upsertNews, type NewsItem, type Parent } from './company-update.repository.ts';

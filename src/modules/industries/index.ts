// The face of the industries module: what the rest of the code uses of it. Its other files are private.
export { industryRoutes } from './industry.v2.routes.ts';
export { createIndustryService, type IndustryService } from './industry.service.ts';
export { industryTx, type IndustryTxService } from './industry-tx.service.ts';

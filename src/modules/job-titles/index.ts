// The face of the job titles module: what the rest of the code uses of it. Its other files are private.
export { jobTitleRoutes } from './job-title.v2.routes.ts';
export { createJobTitleService, type JobTitleService } from './job-title.service.ts';
export { jobTitleTx, type JobTitleTxService } from './job-title-tx.service.ts';

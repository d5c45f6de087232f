// The face of the jobs module (background jobs over HTTP): what the rest of the code uses of it. Its other files are private.
export { jobRoutes } from './jobs.v2.routes.ts';
export { createJobAdminService, type JobAdminService, presentJob } from './jobs.service.ts';
export { JOB_STATUSES } from './jobs.schemas.ts';

// The face of the communities module: what the rest of the code may use. Everything else here is private.
export { linkAppUserContact } from './community.repository.ts';
export { createCommunityService } from './community.service.ts';

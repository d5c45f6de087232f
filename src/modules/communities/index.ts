// The face of the communities module: what the rest of the code uses of it. Its other files are private.
export { linkAppUserContact } from './community.repository.ts';
export { createCommunityService } from './community.service.ts';

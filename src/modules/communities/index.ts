// The face of the communities module: what the rest of the code uses of it. Its other files are private.
export { createCommunityService } from './community.service.ts';
export { communityTx, type CommunityTxService } from './community-tx.service.ts';

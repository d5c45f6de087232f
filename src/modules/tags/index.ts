// The face of the tags module: what the rest of the code uses of it. Its other files are private.
export { tagsField } from './tag.filters.ts';
export { type TagEntityType } from './tag.repository.ts';
export { tagRoutes } from './tag.routes.ts';
export { createTagService } from './tag.service.ts';
export { tagTx, type TagTxService } from './tag-tx.service.ts';

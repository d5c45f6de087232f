// The face of the tags module: what the rest of the code uses of it. Its other files are private.
export { assignTags, resolveTagRefs, unassignTags } from './tag.assignments.ts';
export { tagsField } from './tag.filters.ts';
export { type TagEntityType, tagIdsOf } from './tag.repository.ts';
export { tagRoutes } from './tag.routes.ts';
export { createTagService } from './tag.service.ts';

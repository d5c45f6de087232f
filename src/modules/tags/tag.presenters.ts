import { formatId } from '../../core/ids.ts';
import { TAG_ENTITY_TYPES, type TagEntityType, type TagRow } from './tag.repository.ts';

/** A tag as the core family shows it. */
export function coreTag(row: TagRow) {
  return {
    id: formatId('tag', row.id),
    name: row.name,
    description: row.description,
    entityTypes: row.entityTypes as TagEntityType[],
    createdAt: row.createdAt.toISOString(),
    ...(row.deletedAt ? { deletedAt: row.deletedAt.toISOString() } : {}),
  };
}

/** The v2 family names what a tag applies to in its own words; the core family keeps `member` and `company`. */
const V2_ENTITY_TYPE = { member: 'contact', company: 'organization', activity: 'activity' } as const satisfies Record<TagEntityType, string>;
export const V2_TAG_ENTITY_TYPES = TAG_ENTITY_TYPES.map((type) => V2_ENTITY_TYPE[type]);

export function v2Tag(row: TagRow) {
  return {
    ...coreTag(row),
    entityTypes: (row.entityTypes as TagEntityType[]).map((type) => V2_ENTITY_TYPE[type]),
    deletedAt: row.deletedAt ? row.deletedAt.toISOString() : null,
  };
}

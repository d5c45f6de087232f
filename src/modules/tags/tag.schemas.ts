import Type from 'typebox';
import { Cursor, CursorMeta, Direction, Limit, Nullable, v2Item, v2Page } from '../../http/schemas.ts';
import { TAG_ENTITY_TYPES } from './tag.repository.ts';
import { V2_TAG_ENTITY_TYPES } from './tag.presenters.ts';
import { component } from '../../http/components.ts';

const tagFields = {
  id: Type.String({ description: 'l_N' }),
  name: Type.String(),
  description: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
};

/** The core Tag: `deletedAt` is present only when the tag is deleted; entity types in the core vocabulary. */
export const CoreTag = component(
  'CoreTag',
  Type.Object({
    ...tagFields,
    entityTypes: Type.Array(Type.Enum([...TAG_ENTITY_TYPES]), { description: 'What the tag may be assigned to' }),
    deletedAt: Type.Optional(Type.String({ format: 'date-time', description: 'Present when the tag is deleted' })),
  }),
);

/** The v2 Tag: every field is always present, `deletedAt` null for an active tag; entity types in the v2 vocabulary. */
export const V2Tag = component(
  'Tag',
  Type.Object({
    ...tagFields,
    entityTypes: Type.Array(Type.Enum([...V2_TAG_ENTITY_TYPES]), { description: 'What the tag may be assigned to' }),
    deletedAt: Nullable(Type.String({ format: 'date-time' })),
  }),
);

const TagName = Type.String({ minLength: 1, description: 'Unique per community, trimmed and case-insensitive; at most 255 characters' });
const TagDescription = Type.Optional(Nullable(Type.String({ description: 'At most 5000 characters; null or "" clears it' })));

export const NewTagBody = Type.Object(
  {
    name: TagName,
    description: TagDescription,
    entityTypes: Type.Array(Type.Enum([...TAG_ENTITY_TYPES]), { minItems: 1 }),
  },
  { additionalProperties: false },
);

export const UpdateTagBody = Type.Object({ name: TagName, description: TagDescription }, { additionalProperties: false });

export const CoreTagParams = Type.Object({ id: Type.String({ description: 'l_N, or the bare number' }) });
export const V2TagParams = Type.Object({ id: Type.String({ description: 'l_N' }) });

export const CoreTagList = Type.Object({ labels: Type.Array(CoreTag) });

export const V2TagsQuery = Type.Object({ limit: Limit, cursor: Type.Optional(Cursor), direction: Direction }, { additionalProperties: false });

export const V2TagPage = v2Page(V2Tag, CursorMeta);
export const V2TagItem = v2Item(V2Tag);

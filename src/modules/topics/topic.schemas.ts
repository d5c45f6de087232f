import Type from 'typebox';
import { Cursor, Limit, PageMeta, v2Item, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const Topic = component('Topic', Type.Object({ id: Type.String({ description: 'tp_N' }), name: Type.String() }));

export const TopicsQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    query: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive prefix of the name.' })),
    cols: Type.Optional(Type.String({ description: 'Comma-separated meta columns: `recordCount`.' })),
  },
  { additionalProperties: false },
);

export const TopicParams = Type.Object({ id: Type.String() });

export const TopicResponse = v2Item(Topic);
export const TopicsResponse = v2Page(Topic, PageMeta);

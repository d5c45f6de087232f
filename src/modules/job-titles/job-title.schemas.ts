import Type from 'typebox';
import { Cursor, CursorMeta, Limit, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const JobTitle = component('JobTitle', Type.Object({ value: Type.String({ description: 'The title as contacts or prospector contacts carry it' }) }));

export const JobTitlesQuery = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: 200, description: 'Prefix of the title, in any case.' })),
    limit: Limit,
    cursor: Type.Optional(Cursor),
    sort: Type.Enum(['popularity', 'alphabetical'], {
      default: 'alphabetical',
      description:
        '`popularity`: by how many contacts and prospector contacts carry the title, ties by title ascending; `alphabetical` (default): by title as stored (byte order).',
    }),
    // No default here: it depends on the sort.
    direction: Type.Optional(Type.Enum(['asc', 'desc'], { description: 'Of the leading factor: default `desc` for popularity, `asc` for alphabetical.' })),
  },
  { additionalProperties: false },
);

export const JobTitlesResponse = v2Page(JobTitle, CursorMeta);

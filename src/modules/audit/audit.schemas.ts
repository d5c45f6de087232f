import Type from 'typebox';
import { Cursor, CursorMeta, Limit, Nullable, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const AuditLogEntry = component(
  'AuditLogEntry',
  Type.Object({
    id: Type.String({ description: 'au_N' }),
    at: Type.String({ format: 'date-time', description: 'When the write committed its transaction.' }),
    actor: Type.String({ description: '`user:<login email>`, `token:<token name>`, `cli:<os user>@<host>` or `job:<id>`.' }),
    tokenId: Nullable(
      Type.String({ description: 'The API token (jti) of the request, or `session:<id>` for a write made in the web console; null for the CLI and for jobs.' }),
    ),
    operation: Type.String({ description: '`<entity>.<verb>`, e.g. `contact.push`, `segment.rename`, `contacts.bulk_update`.' }),
    entityIds: Type.Array(Type.String(), { description: 'Every record the write created or changed (c_N, o_N, s_N, l_N, ...).' }),
    detail: Type.Unknown({ description: 'What the IDs alone do not say: the change, counts, the job enqueued.' }),
  }),
);

const When = (edge: string) =>
  Type.String({
    minLength: 1,
    description: `Entries ${edge}: an ISO 8601 date or date-time with offset, or a duration back from now (\`P7D\`, \`PT1H\`).`,
  });

export const AuditLogQuery = Type.Object(
  {
    limit: Limit,
    cursor: Type.Optional(Cursor),
    operation: Type.Optional(Type.String({ minLength: 1, description: 'Exact, or a prefix ending in `*` (`segment.*`).' })),
    actor: Type.Optional(Type.String({ minLength: 1, description: 'Exactly as entries show it.' })),
    tokenId: Type.Optional(Type.String({ minLength: 1, description: 'Writes made with this token (jti).' })),
    entityId: Type.Optional(Type.String({ minLength: 1, description: 'Writes that touched this record (c_12, s_3, ...).' })),
    since: Type.Optional(When('at or after')),
    until: Type.Optional(When('at or before')),
  },
  { additionalProperties: false },
);

export const AuditLogPage = v2Page(AuditLogEntry, CursorMeta);

import Type from 'typebox';
import { Cursor, CursorMeta, Direction, Limit, Nullable, v2Definitions, v2Item, v2Page } from '../../http/schemas.ts';
import { component } from '../../http/components.ts';

export const Provider = component(
  'Provider',
  Type.Object({
    id: Type.String({ description: 'sig_N' }),
    name: Type.String(),
    serviceName: Type.String(),
  }),
);

export const ProvidersQuery = Type.Object({ limit: Limit, cursor: Type.Optional(Cursor), direction: Direction }, { additionalProperties: false });

export const ProvidersResponse = v2Page(Provider, CursorMeta);

export const AdminSource = component(
  'Source',
  Type.Object({
    id: Type.String({ description: 'sig_N' }),
    sourceId: Type.Integer({ description: 'The numeric ID the core pushes take as destinationSourceId' }),
    name: Type.String(),
    kind: Type.String(),
    path: Nullable(Type.String()),
    visible: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  }),
);

export const NewSourceBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Optional(Type.Enum(['api', 'file'])),
    path: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export const AdminSourceResponse = v2Item(AdminSource);
export const AdminSourcesResponse = v2Definitions(AdminSource);

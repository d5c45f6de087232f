import Type from 'typebox';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { component } from '../../http/components.ts';
import type { MeService } from './me.service.ts';

const IdName = Type.Object({ id: Type.String(), name: Type.String() });

const Me = component(
  'Me',
  Type.Object({
    id: Type.String({ description: "The user's contact (c_N): the one holding their login email, else the one made with the user" }),
    communityId: Type.String({ description: 'com_N' }),
    name: Type.String(),
    title: Nullable(Type.String()),
    role: Type.String(),
    loginEmail: Type.String(),
    profiles: Type.Array(Type.Object({ type: Type.String(), handle: Type.String() })),
    segments: Type.Array(IdName, { description: 'Bookmarked segments' }),
    personas: Type.Array(IdName),
    company: Type.Object({ name: Type.String(), domains: Type.Array(Type.String()), summary: Type.String() }),
  }),
);

export function meRoutes(app: HearthApp, services: { me: MeService }) {
  app.get(
    '/api/v2/me',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: { operationId: 'getMe', tags: ['v2'], summary: 'The authenticated user', response: { 200: v2Item(Me) } },
    },
    async (request) => ({ success: true as const, data: await services.me.get(contextOf(request)) }),
  );
}

import Type from 'typebox';
import { Nullable } from '../../http/schemas.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import { component } from '../../http/components.ts';
import type { ContactLookupService } from './contact-lookup.service.ts';

/** A string field of the lookup: `""` when there is no value (the v2 family answers null instead). */
const Text = Type.String({ description: '"" when there is no value' });
const LocationText = Nullable(Type.String());

const LookupResult = component(
  'CoreContactLookupResult',
  Type.Object({
    fullName: Type.String(),
    avatar: Text,
    bio: Text,
    organization: Text,
    title: Text,
    first_seen: Type.String({ format: 'date-time' }),
    last_active: Type.String({ description: 'date-time of the latest activity; "" when there is none' }),
    url: Type.String(),
    twitter: Text,
    github: Text,
    linkedin: Text,
    discord: Text,
    youtube: Text,
    common_room_member_url: Type.String(),
    activities_count: Type.Integer(),
    segments: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
    custom_fields: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), value: Type.Unknown() })),
    location: Type.Object({ city: LocationText, region: LocationText, country: LocationText, countryCode: LocationText, worldRegion: LocationText }),
    member_tags: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  }),
);

export function contactLookupRoutes(app: HearthApp, services: { contactLookup: ContactLookupService }) {
  app.get(
    '/community/v1/members',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'lookUpCoreContacts',
        tags: ['core'],
        summary: 'Look up contacts by email or handle',
        querystring: Type.Object(
          {
            email: Type.Optional(Type.String()),
            twitter: Type.Optional(Type.String()),
            github: Type.Optional(Type.String()),
            linkedin: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(LookupResult) },
      },
    },
    async (request) => services.contactLookup.lookup(contextOf(request).communityId, request.query),
  );

  app.get(
    '/community/v1/user/:email',
    {
      config: { auth: { all: ['contacts:read'] } },
      schema: {
        operationId: 'getCoreContactIdsByEmail',
        tags: ['core'],
        summary: 'IDs of the contacts with an email address',
        params: Type.Object({ email: Type.String() }),
        response: { 200: Type.Object({ ids: Type.Array(Type.Integer()) }) },
      },
    },
    async (request) => services.contactLookup.idsByEmail(contextOf(request).communityId, request.params.email),
  );
}

import Type from 'typebox';
import { component } from '../../http/components.ts';
import { Nullable, v2Item } from '../../http/schemas.ts';
import { MAX_LIMIT, MAX_QUERY_LENGTH } from './search-rules.ts';

export const SearchQuery = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: MAX_QUERY_LENGTH,
      description: `What the person typed, 1..${MAX_QUERY_LENGTH} characters (not only spaces). Case and common accents do not matter.`,
    }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 5, description: `Results of each kind, 1..${MAX_LIMIT}.` }),
  },
  { additionalProperties: false },
);

export const SearchContact = component(
  'SearchContact',
  Type.Object({
    id: Type.String({ description: 'c_N' }),
    name: Type.String(),
    avatarUrl: Nullable(Type.String()),
    matched: Type.Object({
      field: Type.Union([Type.Literal('name'), Type.Literal('email'), Type.Literal('handle')], {
        description:
          '`name`; `email` (an email identity); `handle` (a GitHub, X/Twitter, LinkedIn or Discord identity, or the username a source knows the person by).',
      }),
      value: Type.String({ description: 'The text that matched, as stored.' }),
      platform: Type.Optional(
        Type.String({ description: "For a handle: the identity type (`github`, `twitter`, `linkedin`, `discord`) or the source's service name (`slack`, …)." }),
      ),
    }),
  }),
);

export const SearchOrganization = component(
  'SearchOrganization',
  Type.Object({
    id: Type.String({ description: 'o_N' }),
    name: Type.String(),
    domain: Type.String({ description: 'The primary domain.' }),
    matched: Type.Object({
      field: Type.Union([Type.Literal('name'), Type.Literal('domain')], { description: '`name`, or `domain` (the primary domain or another of its domains).' }),
      value: Type.String({ description: 'The text that matched, as stored.' }),
    }),
  }),
);

export const SearchSegment = component(
  'SearchSegment',
  Type.Object({
    id: Type.String({ description: 's_N' }),
    name: Type.String(),
    entityType: Type.Union([Type.Literal('contact'), Type.Literal('organization'), Type.Literal('object')]),
  }),
);

export const SearchResults = v2Item(
  component(
    'SearchResults',
    Type.Object({
      contacts: Type.Array(SearchContact, { description: 'Empty when the caller may not read contacts (contacts:read).' }),
      organizations: Type.Array(SearchOrganization, { description: 'Empty when the caller may not read organizations (organizations:read).' }),
      segments: Type.Array(SearchSegment, { description: 'Empty when the caller may not read segments (segments:read).' }),
    }),
  ),
);

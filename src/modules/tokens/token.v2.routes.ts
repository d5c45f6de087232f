import Type from 'typebox';
import { Nullable, v2Definitions, v2Item } from '../../http/schemas.ts';
import { SCOPES } from '../../core/scopes.ts';
import { MAX_TOKEN_LIFETIME_SECONDS, MIN_TOKEN_LIFETIME_SECONDS } from './token.service.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';
import type { TokenRow } from './token.repository.ts';
import { component } from '../../http/components.ts';
import type { TokenService } from './token.service.ts';

const TokenInfo = component(
  'Token',
  Type.Object({
    jti: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  }),
);

const NewTokenBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scopes: Type.Optional(Type.Array(Type.Enum([...SCOPES]), { description: 'Default: read write' })),
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: MIN_TOKEN_LIFETIME_SECONDS,
        maximum: MAX_TOKEN_LIFETIME_SECONDS,
        description: 'Lifetime; at most ten years. Default: no expiry',
      }),
    ),
  },
  { additionalProperties: false },
);

const Issued = Type.Object({ token: Type.String(), jti: Type.String() });

/** Token administration for the community of the calling (admin) token. */
export function tokenRoutes(app: HearthApp, services: { tokens: TokenService }) {
  app.get(
    '/api/v2/admin/tokens',
    {
      config: { auth: { all: ['admin'] } },
      schema: { operationId: 'listTokens', tags: ['admin'], summary: 'List API tokens', response: { 200: v2Definitions(TokenInfo) } },
    },
    async (request) => ({ success: true as const, data: (await services.tokens.list(contextOf(request).communityId)).map(tokenInfo) }),
  );

  app.post(
    '/api/v2/admin/tokens',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'createToken',
        tags: ['admin'],
        summary: 'Create an API token',
        description:
          "The token is made for the calling user (a console session's, or the calling token's) and never grants more than that user's role: demoting the user takes the scopes the new role lacks from it, removing the user revokes it.",
        body: NewTokenBody,
        response: { 201: v2Item(Issued) },
      },
    },
    async (request, reply) => {
      const context = contextOf(request);
      // Made for the calling user, and held to their role: it never outlives what its maker may do.
      const issued = await services.tokens.issue(context, { appUserId: context.userId, heldToRole: true, ...request.body });
      return reply.code(201).send({ success: true as const, data: issued });
    },
  );

  app.delete(
    '/api/v2/admin/tokens/:jti',
    {
      config: { auth: { all: ['admin'] } },
      schema: {
        operationId: 'revokeToken',
        tags: ['admin'],
        summary: 'Revoke an API token (refused at once by every process)',
        params: Type.Object({ jti: Type.String() }),
        response: { 200: v2Item(TokenInfo) },
      },
    },
    async (request) => ({
      success: true as const,
      data: tokenInfo(await services.tokens.revoke(contextOf(request), request.params.jti)),
    }),
  );
}

function tokenInfo(token: TokenRow) {
  return {
    jti: token.jti,
    name: token.name,
    scopes: token.scopes,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
  };
}

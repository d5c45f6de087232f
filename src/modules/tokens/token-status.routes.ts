import Type from 'typebox';
import { formatId } from '../../core/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';

const TokenStatus = Type.Object({
  jti: Type.String(),
  communityName: Type.String(),
  communityId: Type.String({ description: 'com_N' }),
});

/** GET api-token-status on both prefixes: any valid token may ask who it is. */
export function tokenStatusRoutes(app: HearthApp) {
  for (const [prefix, tag, operationId] of [
    ['/community/v1', 'core', 'getCoreTokenStatus'],
    ['/api/v2', 'v2', 'getTokenStatus'],
  ] as const) {
    app.get(
      `${prefix}/api-token-status`,
      {
        config: { auth: { all: [] } },
        schema: { operationId, tags: [tag], summary: 'Token status check', response: { 200: TokenStatus } },
      },
      async (request) => {
        const context = contextOf(request);
        return { jti: context.tokenId, communityName: context.communityName, communityId: formatId('community', context.communityId) };
      },
    );
  }
}

import Type from 'typebox';
import { formatId } from '../../http/ids.ts';
import { contextOf, type HearthApp } from '../../http/types.ts';

const TokenStatus = Type.Object({
  jti: Type.String(),
  communityName: Type.String(),
  communityId: Type.String({ description: 'com_N' }),
});

/** GET api-token-status on both prefixes: any valid token may ask who it is. */
export function tokenStatusRoutes(app: HearthApp) {
  for (const [prefix, tag] of [
    ['/community/v1', 'core'],
    ['/api/v2', 'v2'],
  ] as const) {
    app.get(
      `${prefix}/api-token-status`,
      {
        config: { auth: { all: [] } },
        schema: { tags: [tag], summary: 'Token status check', response: { 200: TokenStatus } },
      },
      async (request) => {
        const context = contextOf(request);
        return { jti: context.tokenId, communityName: context.communityName, communityId: formatId('community', context.communityId) };
      },
    );
  }
}

import { formatId } from '../../core/ids.ts';
import { cliWriter } from '../../core/writer.ts';
import { MAX_TOKEN_LIFETIME_SECONDS, MIN_TOKEN_LIFETIME_SECONDS } from '../../modules/tokens/index.ts';
import { community, communityOrAll, durationOption, required, table, UsageError, type Command } from '../command.ts';

/** `--expires-in`: a duration (a bare number is seconds, as it always was), whole seconds, up to ten years. */
function tokenLifetime(value: string): number {
  const seconds = durationOption(value, '--expires-in', 's') / 1000;
  if (!Number.isInteger(seconds) || seconds < MIN_TOKEN_LIFETIME_SECONDS || seconds > MAX_TOKEN_LIFETIME_SECONDS) {
    throw new UsageError(
      `--expires-in must be from 1m (${MIN_TOKEN_LIFETIME_SECONDS} seconds) to ten years (${MAX_TOKEN_LIFETIME_SECONDS} seconds), in whole seconds; got "${value}"`,
    );
  }
  return seconds;
}

export const tokenCommand: Command = {
  name: 'token',
  run: {
    async create({ services, values, emit }) {
      const communityId = await community(services, values.community);
      const issued = await services.tokens.issue(cliWriter(communityId), {
        scopes: values.scopes?.split(','),
        name: values.name,
        appUserId: await services.communities.adminOf(communityId),
        expiresInSeconds: values['expires-in'] ? tokenLifetime(values['expires-in']) : undefined,
      });
      emit(issued, `Token (shown once): ${issued.token}\njti: ${issued.jti}`);
      return 0;
    },
    async list({ services, values, emit }) {
      const list = await services.tokens.list(await communityOrAll(services, values.community));
      emit(
        list.map((t) => ({ ...t, communityId: formatId('community', t.communityId) })),
        table(
          ['JTI', 'COMMUNITY', 'NAME', 'SCOPES', 'STATE'],
          list.map((t) => [t.jti, formatId('community', t.communityId), t.name, t.scopes.join(' '), t.revokedAt ? 'revoked' : 'active']),
        ),
      );
      return 0;
    },
    async revoke({ services, args, emit }) {
      const jti = required(args[0], 'the JTI to revoke');
      const revoked = await services.tokens.revoke(cliWriter(await services.tokens.communityOf(jti)), jti);
      emit({ jti: revoked.jti, revokedAt: revoked.revokedAt }, `Revoked ${revoked.jti}.`);
      return 0;
    },
  },
};

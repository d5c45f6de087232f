import { formatId } from '../../core/ids.ts';
import { cliWriter } from '../../core/writer.ts';
import { MAX_TOKEN_LIFETIME_SECONDS, MIN_TOKEN_LIFETIME_SECONDS } from '../../modules/tokens/index.ts';
import { community, communityOrAll, required, table, UsageError, type Command } from '../command.ts';

function tokenLifetime(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < MIN_TOKEN_LIFETIME_SECONDS || seconds > MAX_TOKEN_LIFETIME_SECONDS) {
    throw new UsageError(`--expires-in must be a whole number of seconds from ${MIN_TOKEN_LIFETIME_SECONDS} to ${MAX_TOKEN_LIFETIME_SECONDS} (ten years)`);
  }
  return seconds;
}

export const tokenCommand: Command = {
  name: 'token',
  usage: `  token create [--community com_N] [--scopes a,b] [--name NAME] [--expires-in SECONDS] [--json]
  token list [--community com_N] [--json]
  token revoke JTI`,
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
        table(list.map((t) => [t.jti, formatId('community', t.communityId), t.name, t.scopes.join(' '), t.revokedAt ? 'revoked' : 'active'])),
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

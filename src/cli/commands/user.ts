import { formatId } from '../../core/ids.ts';
import { cliWriter } from '../../core/writer.ts';
import { community, required, table, UsageError, type Command } from '../command.ts';

function role(value: string | undefined): 'admin' | 'member' {
  if (value === undefined) return 'member';
  if (value !== 'admin' && value !== 'member') throw new UsageError('--role is admin or member');
  return value;
}

/** Console users (docs/console.md): a new user or a reset gets a one-time sign-in link to hand over. */
export const userCommand: Command = {
  name: 'user',
  run: {
    async add({ services, args, values, emit }) {
      const communityId = await community(services, values.community);
      const made = await services.appUsers.add(cliWriter(communityId), {
        loginEmail: required(args[0], 'the email address'),
        name: required(values.name, '--name'),
        role: role(values.role),
      });
      emit(
        { id: formatId('app_user', made.user.id), loginEmail: made.user.loginEmail, role: made.user.role, signInLink: made.signInLink.url },
        `Added ${made.user.loginEmail} (${made.user.role}). One-time sign-in link (shown once, good for 24 hours):\n${made.signInLink.url}`,
      );
      return 0;
    },
    async list({ services, values, emit }) {
      const list = (await services.appUsers.list(await community(services, values.community))).map((user) => ({
        id: formatId('app_user', user.id),
        name: user.name,
        loginEmail: user.loginEmail,
        role: user.role,
        hasPassword: user.hasPassword,
      }));
      emit(
        list,
        table(
          ['ID', 'NAME', 'EMAIL', 'ROLE', 'PASSWORD'],
          list.map((u) => [u.id, u.name, u.loginEmail, u.role, u.hasPassword ? 'set' : 'not yet']),
        ),
      );
      return 0;
    },
    async 'reset-password'({ services, args, values, emit }) {
      const communityId = await community(services, values.community);
      const user = await services.appUsers.byEmail(communityId, required(args[0], 'the email address'));
      const link = await services.appUsers.issueLink(cliWriter(communityId), user.id);
      emit({ loginEmail: user.loginEmail, signInLink: link.url }, `One-time sign-in link for ${user.loginEmail} (shown once, good for 24 hours):\n${link.url}`);
      return 0;
    },
    async remove({ services, args, values, emit }) {
      const communityId = await community(services, values.community);
      const user = await services.appUsers.byEmail(communityId, required(args[0], 'the email address'));
      const { warnings } = await services.appUsers.remove(cliWriter(communityId), user.id);
      emit(
        { removed: formatId('app_user', user.id), ...(warnings.length ? { warnings } : {}) },
        [`Removed ${user.loginEmail}; their sessions have ended.`, ...warnings.map((warning) => `Warning: ${warning}.`)].join('\n'),
      );
      return 0;
    },
  },
};

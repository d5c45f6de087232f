import { formatId } from '../../core/ids.ts';
import { communityOrAll, table, type Command } from '../command.ts';

function erasedSummary(erased: Record<string, number | undefined>): string {
  return Object.entries(erased)
    .map(([what, count]) => `${what}=${count ?? 0}`)
    .join(' ');
}

export const privacyCommand: Command = {
  name: 'privacy',
  run: {
    async list({ services, values, emit }) {
      const list = (await services.privacy.list(await communityOrAll(services, values.community))).map((r) => ({
        id: r.id,
        communityId: formatId('community', r.communityId),
        status: r.status,
        email: r.email,
        requestedAt: r.requestedAt.toISOString(),
        deadlineAt: r.deadlineAt.toISOString(),
        completedAt: r.completedAt?.toISOString() ?? null,
        erased: r.erased,
      }));
      emit(
        list,
        table(
          ['REQUEST', 'COMMUNITY', 'STATUS', 'EMAIL', 'REQUESTED', 'DEADLINE', 'COMPLETED', 'ERASED'],
          list.map((r) => [
            String(r.id),
            r.communityId,
            r.status,
            r.email ?? '(erased)',
            r.requestedAt,
            r.deadlineAt,
            r.completedAt ?? '',
            erasedSummary(r.erased),
          ]),
        ),
      );
      return 0;
    },
  },
};

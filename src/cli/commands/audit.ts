import { cliActor } from '../../core/writer.ts';
import { communityOrAll, positiveInteger, required, table, whenOption, type Command } from '../command.ts';

/** A few IDs for a table cell; `--json` has them all. */
function idsSummary(ids: string[]): string {
  return ids.length > 4 ? `${ids.slice(0, 4).join(' ')} +${ids.length - 4} more` : ids.join(' ');
}

export const auditCommand: Command = {
  name: 'audit',
  run: {
    async ''({ services, values, emit }) {
      const list = await services.audit.latest(
        await communityOrAll(services, values.community),
        {
          operation: values.operation,
          actor: values.actor,
          tokenId: values.token,
          entityId: values.entity,
          since: whenOption(values.since),
          until: whenOption(values.until),
        },
        values.limit ? positiveInteger(values.limit, '--limit') : 50,
      );
      emit(
        list,
        table(
          ['ENTRY', 'AT', 'COMMUNITY', 'ACTOR', 'OPERATION', 'IDS', 'TOKEN'],
          list.map((e) => [e.id, e.at, e.communityId, e.actor, e.operation, idsSummary(e.entityIds), e.tokenId ?? '']),
        ),
      );
      return 0;
    },
    async prune({ services, values, emit }) {
      const pruned = await services.audit.prune(await communityOrAll(services, values.community), whenOption(required(values.before, '--before'))!, cliActor());
      emit(
        { before: pruned.before.toISOString(), deleted: pruned.deleted },
        `Deleted ${pruned.deleted} audit entries from before ${pruned.before.toISOString()}.`,
      );
      return 0;
    },
  },
};

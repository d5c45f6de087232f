import { cliActor } from '../../core/writer.ts';
import { communityOrAll, positiveInteger, required, table, type Command } from '../command.ts';

/** A few IDs for a table cell; `--json` has them all. */
function idsSummary(ids: string[]): string {
  return ids.length > 4 ? `${ids.slice(0, 4).join(' ')} +${ids.length - 4} more` : ids.join(' ');
}

export const auditCommand: Command = {
  name: 'audit',
  usage: `  audit [--community com_N] [--operation OP|PREFIX*] [--actor ACTOR] [--token JTI] [--entity ID]
        [--since WHEN] [--until WHEN] [--limit N] [--json]
                                          the audit log, newest first (every community by default): who
                                          wrote what and when, through the API or the CLI. WHEN is an ISO
                                          date or date-time with offset, or a duration back from now (P7D)
  audit prune --before WHEN [--community com_N] [--json]
                                          deletes older entries (every community by default); each
                                          community that lost some records the prune`,
  run: {
    async ''({ services, values, emit }) {
      const list = await services.audit.latest(
        await communityOrAll(services, values.community),
        { operation: values.operation, actor: values.actor, tokenId: values.token, entityId: values.entity, since: values.since, until: values.until },
        values.limit ? positiveInteger(values.limit, '--limit') : 50,
      );
      emit(list, table(list.map((e) => [e.id, e.at, e.communityId, e.actor, e.operation, idsSummary(e.entityIds), e.tokenId ?? ''])));
      return 0;
    },
    async prune({ services, values, emit }) {
      const pruned = await services.audit.prune(await communityOrAll(services, values.community), required(values.before, '--before'), cliActor());
      emit({ before: pruned.before.toISOString(), deleted: pruned.deleted }, `Deleted ${pruned.deleted} audit entries from before ${pruned.before.toISOString()}.`);
      return 0;
    },
  },
};

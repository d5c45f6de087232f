import { formatId } from '../../core/ids.ts';
import { communityOrAll, table, type Command } from '../command.ts';

export const ingestionCommand: Command = {
  name: 'ingestion',
  run: {
    async ''({ services, values, emit }) {
      const only = await communityOrAll(services, values.community);
      const backlogs = (await services.ingestion.backlogs())
        .filter((backlog) => only === null || backlog.communityId === only)
        .map(({ communityId, ...rest }) => ({ communityId: formatId('community', communityId), ...rest }));
      const rows = backlogs.map((b) => [
        b.communityId,
        String(b.queuedPushes),
        b.oldestQueuedMs === null ? '' : `${b.oldestQueuedMs} ms`,
        String(b.storedLastMinute),
        String(b.batchesLastMinute),
        String(b.processes),
      ]);
      emit(
        backlogs,
        rows.length
          ? table(['COMMUNITY', 'QUEUED', 'OLDEST', 'STORED/MIN', 'BATCHES/MIN', 'PROCESSES'], rows)
          : 'no pushes waiting or stored in the last minute',
      );
      return 0;
    },
  },
};

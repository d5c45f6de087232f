import { tablePlacement } from '../../db/citus.ts';
import { distributeAll } from '../../db/migrate.ts';
import { table, UsageError, type Command } from '../command.ts';

export const dbCommand: Command = {
  name: 'db',
  run: {
    async distribute({ database, emit }) {
      if (!database.citus)
        throw new UsageError(
          'this database has no Citus extension: create it on the coordinator and the workers and add the workers first (docs/scaling.md, "Moving to Citus")',
        );
      // Opening the database placed what was pending already (every command does); report that as done here.
      const now = await distributeAll(database.db);
      const done = {
        reference: [...(database.placedAtOpen?.reference ?? []), ...now.reference],
        distributed: [...(database.placedAtOpen?.distributed ?? []), ...now.distributed],
      };
      const placement = await tablePlacement(database.db);
      const newly = done.reference.length + done.distributed.length;
      emit(
        { distributed: done.distributed, reference: done.reference, tables: placement },
        [
          table(
            ['TABLE', 'PLACEMENT'],
            placement.map((row) => [row.table, row.type]),
          ),
          newly === 0
            ? 'Every table was in its place already.'
            : `Distributed ${done.distributed.length} tables and made ${done.reference.length} reference tables.`,
        ].join('\n'),
      );
      return 0;
    },
  },
};

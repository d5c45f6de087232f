import fs from 'node:fs';
import { formatId, parseId } from '../../core/ids.ts';
import { cliWriter } from '../../core/writer.ts';
import { community, required, UsageError, type Command } from '../command.ts';
import { importObjects } from '../objects-import.ts';
import { terminalProgress } from '../progress-bar.ts';

export const objectsCommand: Command = {
  name: 'objects',
  run: {
    async import({ services, values, args, emit, print, terminal, file: resolve }) {
      const file = resolve(required(args[0], 'the JSONL file to import'));
      const communityId = await community(services, values.community);
      const objectTypeId = required(values.type, '--type');
      parseId('object_type', objectTypeId);
      if (!(await services.objectTypes.list(communityId)).some((type) => type.id === objectTypeId)) {
        throw new UsageError(`no object type ${objectTypeId} in ${formatId('community', communityId)} (\`hearth object-type list\` shows them)`);
      }
      try {
        if (!fs.statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const progress = terminal.errIsTTY ? terminalProgress({ write: terminal.err }) : null;
      const outcome = await importObjects(services.objectUpserts, { writer: cliWriter(communityId), objectTypeId, file }, { progress });
      const { totals } = outcome;
      const counts = `${totals.created} created, ${totals.updated} updated, ${totals.batches} batch${totals.batches === 1 ? '' : 'es'}`;
      if (outcome.ok) {
        emit({ objectTypeId, ...totals }, `Imported ${totals.records} records from ${file} into ${objectTypeId}: ${counts}.`);
        return 0;
      }
      if (values.json) print(JSON.stringify({ objectTypeId, ...totals, problems: outcome.problems }));
      const written = totals.batches
        ? `Written before the stop: ${totals.records} records from lines 1-${totals.writtenThroughLine} (${counts})`
        : 'Nothing was written';
      terminal.err(
        `hearth: objects import stopped:\n${outcome.problems.map((problem) => `  ${problem}\n`).join('')}` +
          `${written}; nothing from line ${totals.writtenThroughLine + 1} on was written.\n`,
      );
      return 1;
    },
  },
};

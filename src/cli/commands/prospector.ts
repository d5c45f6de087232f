import fs from 'node:fs';
import type { ImportKind } from '../../modules/prospector/index.ts';
import { communityWriter, required, UsageError, type Command, type Terminal } from '../command.ts';
import { lineProgress, terminalProgress } from '../progress-bar.ts';
import { FileRefused, importProspectorFile, planFileImport, type FileImportOutcome } from '../prospector-import.ts';

const KINDS: ImportKind[] = ['companies', 'contacts'];

/** Ctrl-C (or SIGTERM) while importing: finish the chunk being written, then stop; a second one stops at once. */
function stopOnInterrupt(terminal: Terminal, onFirst: () => void) {
  let requested = false;
  const release = terminal.onInterrupt(() => {
    requested = true;
    onFirst();
  });
  return { requested: () => requested, release };
}

function counts(totals: { records: number; added: number; changed: number; unchanged: number; chunks: number }) {
  return `${totals.added} added, ${totals.changed} changed, ${totals.unchanged} unchanged (${totals.chunks} chunk${totals.chunks === 1 ? '' : 's'})`;
}

export const prospectorCommand: Command = {
  name: 'prospector',
  run: {
    async import({ services, values, args, emit, print, terminal, file: resolve }) {
      const file = resolve(required(args[0], 'the file to import (JSON Lines or CSV)'));
      if (values.kind !== undefined && !KINDS.includes(values.kind as ImportKind)) throw new UsageError('--kind must be companies or contacts');
      const writer = await communityWriter({ services, values });
      try {
        if (!fs.statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const imports = services.prospectorImports;
      let outcome: FileImportOutcome;
      let plan: Awaited<ReturnType<typeof planFileImport>>;
      const stop = stopOnInterrupt(terminal, () => terminal.err('\nStopping after the chunk being written (Ctrl-C again to stop at once)…\n'));
      try {
        plan = await planFileImport(imports, { file, kind: (values.kind as ImportKind | undefined) ?? null, restart: values.restart ?? false });
        if (plan.resumed) {
          terminal.err(
            `Resuming the import of ${file} after line ${plan.start.line}: ${plan.before.records} ${plan.kind} were imported before (--restart starts over).\n`,
          );
        }
        const tty = terminal.errIsTTY;
        outcome = await importProspectorFile(imports, plan, {
          writer,
          stopRequested: stop.requested,
          progress: (phase) => {
            if (tty) terminal.err(`${phase === 'checking' ? 'Checking' : 'Importing'} ${plan.kind} from ${file}\n`);
            const stream = { write: terminal.err };
            return tty ? terminalProgress(stream) : lineProgress(stream, phase);
          },
        });
      } catch (error) {
        if (error instanceof FileRefused) throw new UsageError(error.message);
        throw error;
      } finally {
        stop.release();
      }

      const summary = { kind: plan.kind, file, format: plan.format, ...outcome.totals };
      if (outcome.status === 'imported') {
        const resumed = outcome.resumedAfterLine === null ? '' : `, resumed after line ${outcome.resumedAfterLine}`;
        emit(
          { ...summary, resumedAfterLine: outcome.resumedAfterLine },
          `Imported ${outcome.totals.records} ${plan.kind} from ${file}: ${counts(outcome.totals)}${resumed}.`,
        );
        return 0;
      }
      if (outcome.status === 'interrupted') {
        if (values.json) print(JSON.stringify({ ...summary, interrupted: true, committedThroughLine: outcome.committedThroughLine }));
        terminal.err(
          `hearth: prospector import interrupted: ${outcome.totals.records} ${plan.kind} imported through line ${outcome.committedThroughLine}; ` +
            'run the same command again to continue from there.\n',
        );
        return 130;
      }
      if (values.json) print(JSON.stringify({ ...summary, faultCount: outcome.faultCount, faults: outcome.faults }));
      const more = outcome.faultCount > outcome.faults.length ? `  … and ${outcome.faultCount - outcome.faults.length} more\n` : '';
      const written = outcome.totals.records
        ? `Nothing more was written: the ${outcome.totals.records} ${plan.kind} imported through line ${outcome.committedThroughLine} stay.`
        : 'Nothing was written.';
      terminal.err(
        `hearth: prospector import refused: ${outcome.faultCount} fault${outcome.faultCount === 1 ? '' : 's'} in ${file}:\n` +
          `${outcome.faults.map((fault) => `  ${fault}\n`).join('')}${more}${written}\n`,
      );
      return 1;
    },
  },
};

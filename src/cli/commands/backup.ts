import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config.ts';
import { DataDirLockedError } from '../../db/data-dir-lock.ts';
import { DataDirRefusedError } from '../../db/data-dir.ts';
import { openDatabase } from '../../db/database.ts';
import { required, UsageError, type Command, type Invocation, type Terminal } from '../command.ts';

const POSTGRES_BACKUP = 'is for the embedded database; for PostgreSQL use pg_dump and pg_restore (README: Backups)';

const size = (bytes: number) => (bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} kB`);

/**
 * `hearth backup FILE`: the embedded database, dumped by whichever process holds it: this one (no server
 * runs), or the server, which runs the command for this process (command-socket.ts) between two callers
 * of its connection, so the backup is consistent while it serves.
 */
export const backupCommand: Command = {
  name: 'backup',
  takesArguments: true,
  run: {
    async ''({ database, args, file, emit }) {
      const target = file(required(args[0], 'the backup file (FILE)'));
      if (!database.dump) throw new UsageError(`hearth backup ${POSTGRES_BACKUP}`);
      const dump = Buffer.from(await (await database.dump()).arrayBuffer());
      // Written beside the target and renamed: a file at FILE is always a whole backup.
      const partial = `${target}.partial-${process.pid}`;
      try {
        fs.writeFileSync(partial, dump, { flag: 'wx', mode: 0o600 });
        fs.renameSync(partial, target);
      } catch (error) {
        fs.rmSync(partial, { force: true });
        throw new UsageError(`cannot write ${target}: ${(error as Error).message}`);
      }
      emit({ file: target, bytes: dump.length }, `Backed up the embedded database to ${target} (${size(dump.length)}).`);
      return 0;
    },
  },
};

/**
 * `hearth restore FILE`: with no process on the data directory (restoring under a running server would
 * pull its database from under it; the directory's lock refuses), the database is replaced by the backup,
 * migrated to this version, and the one it replaced kept beside it.
 */
export async function restoreEmbedded(config: Config, invocation: Invocation, terminal: Terminal, label: string): Promise<number> {
  if (config.databaseUrl !== null) throw new UsageError(`hearth restore ${POSTGRES_BACKUP}`);
  const source = path.resolve(terminal.cwd, required(invocation.sub, 'the backup file (FILE)'));
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(source);
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as Error).message}`);
  }
  // A gzip stream (what `hearth backup` writes) or a plain tar (PGlite's uncompressed dump).
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const tar = bytes.length > 262 && bytes.subarray(257, 262).toString('latin1') === 'ustar';
  if (!gzip && !tar) throw new UsageError(`${source} is not a backup made by \`hearth backup\` (neither gzip nor tar)`);
  const keepAs = path.join(config.dataDir, `pgdata.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const had = fs.existsSync(path.join(config.dataDir, 'pgdata'));
  let database;
  try {
    database = await openDatabase({ engine: 'pglite', dataDir: config.dataDir, command: label, restore: { backup: new Blob([bytes]), keepAs } });
  } catch (error) {
    if (error instanceof DataDirLockedError || error instanceof DataDirRefusedError) throw error;
    throw new UsageError(`${source} could not be restored (${(error as Error).message}); the database in ${config.dataDir} is as it was`);
  }
  await database.close();
  const kept = had ? ` The database it replaced is in ${keepAs} (delete it once you are satisfied).` : '';
  const text = `Restored the embedded database in ${config.dataDir} from ${source}.${kept}`;
  await terminal.out(`${invocation.values.json ? JSON.stringify({ file: source, dataDir: config.dataDir, replacedKeptAs: had ? keepAs : null }) : text}\n`);
  return 0;
}

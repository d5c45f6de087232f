import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';

export interface Machine {
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  /** PostgreSQL settings that shape the figures (the server's, untouched by the bench; Hearth's own
   *  connections turn `jit` off for themselves; without autovacuum, only the statistics Hearth keeps
   *  itself follow a growing table). */
  postgresSettings: Record<string, string>;
  /** 1-minute load average when the measurements began: other work on the machine shows here. */
  loadAverage: number;
  /** And when they ended (null until then): work that came or went during the run shows here. */
  loadAverageAtEnd: number | null;
}

export const loadAverage = () => Math.round(os.loadavg()[0]! * 100) / 100;

export async function describeMachine(db: Kysely<DB>): Promise<Machine> {
  const cpus = os.cpus();
  const version = await sql<{ server_version: string }>`show server_version`.execute(db);
  const settings = await sql<{ name: string; setting: string; unit: string | null }>`
    select name, reset_val as setting, unit from pg_settings
    where name in ('autovacuum', 'shared_buffers', 'work_mem', 'effective_cache_size', 'random_page_cost', 'max_connections', 'jit')
    order by name`.execute(db);
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: version.rows[0]?.server_version ?? 'unknown',
    postgresSettings: Object.fromEntries(settings.rows.map((row) => [row.name, row.unit ? `${row.setting} × ${row.unit}` : row.setting])),
    loadAverage: loadAverage(),
    loadAverageAtEnd: null,
  };
}

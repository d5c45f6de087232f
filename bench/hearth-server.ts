import type { LogEvent } from 'kysely';
import { systemClock } from '../src/clock.ts';
import { openDatabase } from '../src/db/database.ts';
import { tuneHeap } from '../src/heap-tuning.ts';
import { createWorker } from '../src/jobs/worker.ts';
import { benchApp } from './bench-app.ts';
import { onMessage, send, type CapturedQuery } from './ipc.ts';

/**
 * Hearth as `hearth serve` runs it, in a child process of the bench (forked with an IPC channel): the app
 * of src/app.ts over the services of src/services.ts, logger off, rate limit out of the way. The one
 * difference is a `log` hook on Kysely that records each statement's SQL and parameters while the parent
 * asks for it (`capture`), so that the bare baseline can run exactly what Hearth ran.
 *
 * The heap is tuned and the database opened as `hearth serve` does it (openDatabase: same pool size, type parsers and
 * listening connection); the parent has migrated and seeded it. With BENCH_DATA_DIR it is the embedded
 * database of that directory (no statement capture there). With BENCH_WORKER=1 it also runs the job worker,
 * as `hearth serve` does (the connector figures: a connector's sync is a job).
 */

// As `hearth serve` sets it up before it opens the database.
tuneHeap();
const url = process.env.BENCH_DATABASE_URL;
// BENCH_DATA_DIR: the embedded database of that directory instead (the push figure's embedded run).
const dataDir = process.env.BENCH_DATA_DIR;
if (!url && !dataDir) throw new Error('BENCH_DATABASE_URL or BENCH_DATA_DIR must be set');
const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? 10);

let capturing: CapturedQuery[] | null = null;
const log = (event: LogEvent) => {
  if (capturing && event.level === 'query') capturing.push({ sql: event.query.sql, parameters: [...event.query.parameters] });
};

const database = dataDir
  ? await openDatabase({ engine: 'pglite', dataDir, command: 'bench' })
  : await openDatabase({ engine: 'postgres', url: url!, poolSize: POOL_SIZE, log });
const { app, services } = await benchApp(database);
await app.listen({ port: 0, host: '127.0.0.1' });
const worker =
  process.env.BENCH_WORKER === '1' ? createWorker({ db: database.db, clock: systemClock, queue: services.jobs, exclusive: !database.shared }) : null;
worker?.start();
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');

onMessage(async (message) => {
  if (message.type === 'capture-start') {
    capturing = [];
    send({ type: 'capture-started' });
  } else if (message.type === 'capture-stop') {
    send({ type: 'captured', queries: capturing ?? [] });
    capturing = null;
  } else if (message.type === 'stop') {
    await Promise.all([app.close(), worker?.stop()]);
    await database.close();
    process.exit(0);
  }
});
send({ type: 'ready', port: address.port });

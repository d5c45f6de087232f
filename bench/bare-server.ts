import Fastify from 'fastify';
import pg from 'pg';
import { pgTypes } from '../src/db/type-parsers.ts';
import { onMessage, send, type CapturedQuery } from './ipc.ts';

/**
 * The baseline of the throughput ratio, in a child process of the bench: a plain Fastify app and a pg.Pool
 * of Hearth's size and type parsers, no authentication, no rate limit, no validation, no serialization
 * schema, that runs the one statement Hearth ran for the same list request (BENCH_BARE_QUERY: its SQL text
 * and parameters, captured from Hearth) and answers the rows as JSON. What Hearth does beyond this is the
 * cost of its layers. `/bare-all` runs every statement Hearth ran for the request, in order (see run.ts).
 */

const url = process.env.BENCH_DATABASE_URL;
const raw = process.env.BENCH_BARE_QUERY;
if (!url || !raw) throw new Error('BENCH_DATABASE_URL and BENCH_BARE_QUERY must be set');
const query = JSON.parse(raw) as CapturedQuery;
// Every statement Hearth ran for the request (authentication, rate-limit counter, the page), when given.
const all = JSON.parse(process.env.BENCH_BARE_ALL ?? '[]') as CapturedQuery[];
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);

const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes });
pool.on('error', () => {});
const app = Fastify({ logger: false });
app.get('/bare', async () => (await pool.query(query.sql, query.parameters)).rows);
// Not the baseline: a diagnostic that separates what Hearth's statements cost from what its code costs.
app.get('/bare-all', async () => {
  let rows: unknown[] = [];
  for (const statement of all) {
    const result = await pool.query(statement.sql, statement.parameters);
    if (statement.sql === query.sql) rows = result.rows;
  }
  return rows;
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no TCP address');

onMessage(async (message) => {
  if (message.type === 'stop') {
    await app.close();
    await pool.end();
    process.exit(0);
  }
});
send({ type: 'ready', port: address.port });

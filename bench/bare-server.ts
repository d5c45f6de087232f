import Fastify from 'fastify';
import pg from 'pg';
import { pgTypes } from '../src/db/type-parsers.ts';
import { withRecordIds } from './bulk.ts';
import { onMessage, send, type CapturedQuery } from './ipc.ts';

/**
 * The baselines, in a child process of the bench: a plain Fastify app and a pg.Pool of Hearth's size and
 * type parsers, no authentication, no rate limit, no validation, no serialization schema, that runs the
 * statements Hearth ran for the same request (captured from Hearth: SQL text and parameters). What Hearth
 * does beyond this is the cost of its layers.
 * - BENCH_BARE_QUERY: `GET /bare` runs the one statement of a list request that reads the page and answers
 *   the rows as JSON. `/bare-all` runs every statement Hearth ran for the request, in order (see run.ts).
 * - BENCH_BARE_BULK (`{statements, ids}`): `POST /bare-bulk` takes a bulk update body and runs the statements
 *   of Hearth's bulk update transaction (begin … commit) on one connection, with the body's contact IDs in
 *   place of the captured request's `ids`, and answers `{success, data: {ids}}`.
 */

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL must be set');
const raw = process.env.BENCH_BARE_QUERY;
const query = raw ? (JSON.parse(raw) as CapturedQuery) : null;
// Every statement Hearth ran for the request (authentication, rate-limit counter, the page), when given.
const all = JSON.parse(process.env.BENCH_BARE_ALL ?? '[]') as CapturedQuery[];
const bulk = process.env.BENCH_BARE_BULK ? (JSON.parse(process.env.BENCH_BARE_BULK) as { statements: CapturedQuery[]; ids: number[] }) : null;
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);

const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes });
pool.on('error', () => {});
const app = Fastify({ logger: false });
if (query) {
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
}
if (bulk) {
  app.post('/bare-bulk', async (request) => {
    const given = (request.body as { contactIds: string[] }).contactIds;
    const statements = withRecordIds(bulk.statements, bulk.ids, given.map((id) => Number(id.slice(2))));
    const client = await pool.connect();
    try {
      for (const statement of statements) await client.query(statement.sql, statement.parameters);
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
    return { success: true, data: { ids: given } };
  });
}
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

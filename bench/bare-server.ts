import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { pgTypes } from '../src/db/type-parsers.ts';
import { bareBackfillRoute } from './bare-backfill.ts';
import { withRecordIds } from './bulk.ts';
import { serveUntilStopped, type CapturedQuery } from './ipc.ts';

/**
 * The baselines, in a child process of the bench: a plain Fastify app and a pg.Pool of Hearth's size and
 * type parsers, no authentication, no rate limit, no validation, no serialization schema, that runs the
 * statements Hearth ran for the same request (captured from Hearth: SQL text and parameters). What Hearth
 * does beyond this is the cost of its layers.
 * - BENCH_BARE_QUERY and BENCH_BARE_LIST: `GET /bare` runs the one statement of a list request that reads the
 *   page and answers exactly what Hearth answers (below); `/bare-rows` answers that statement's rows as JSON,
 *   and `/bare-all` runs every statement Hearth ran for the request, in order (diagnostics; see run.ts).
 * - BENCH_BARE_BULK (`{statements, ids}`): `POST /bare-bulk` takes a bulk update body and runs the statements
 *   of Hearth's bulk update transaction (begin … commit) on one connection, with the body's contact IDs in
 *   place of the captured request's `ids`, and answers `{success, data: {ids}}`.
 * - BENCH_BARE_PUSH (`{communityId, sourceId}`): `POST /bare-push` takes an activity push body and does the
 *   least a push must: in one transaction, find the contact by email or make it, and upsert the activity;
 *   `POST /bare-push-batch` does the same for an array of pushes, set-based; `POST /bare-backfill-batch` writes
 *   for a batch of the first backfill's pushes every row Hearth writes for it (bare-backfill.ts).
 * - BENCH_BARE_TRACKER: `POST /bare-pageview/:key` takes a page view as /t.js sends it (text/plain JSON) and
 *   does the least the tracker must: find the live key, insert the visit (once per browser, page and time).
 * - BENCH_BARE_RECEIVER (`{secret}`): `POST /bare-receiver` takes a GitHub webhook delivery and does the least a
 *   receiver must: check `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the secret) and insert the raw
 *   payload into a table of its own (`bench_bare_deliveries`, made here, once per delivery ID); 202
 *   `{received, duplicate}` as Hearth's receiver answers, 401 for a bad signature.
 */

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL must be set');
const raw = process.env.BENCH_BARE_QUERY;
const query = raw ? (JSON.parse(raw) as CapturedQuery) : null;
// Every statement Hearth ran for the request (authentication, rate-limit counter, the page), when given.
const all = JSON.parse(process.env.BENCH_BARE_ALL ?? '[]') as CapturedQuery[];
const bulk = process.env.BENCH_BARE_BULK ? (JSON.parse(process.env.BENCH_BARE_BULK) as { statements: CapturedQuery[]; ids: number[] }) : null;
const push = process.env.BENCH_BARE_PUSH ? (JSON.parse(process.env.BENCH_BARE_PUSH) as { communityId: number; sourceId: number }) : null;
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);

/** What the bare push endpoints read of a push (bench/push.ts sends them). */
interface PushBody {
  id: string;
  activityType: string;
  timestamp?: string;
  content?: { value?: string };
  user: { email: string; fullName?: string };
}

const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes });
pool.on('error', () => {});
const app = Fastify({ logger: false });
/**
 * What Hearth answers for the list, made the shortest way: its page statement's rows presented as its
 * records (ID prefix and name: the list's fields without `cols`), and the next cursor signed as Hearth
 * signs it (core/cursor.ts: base64url JSON of the binding hash and the last row's sort values, then 16 bytes
 * of HMAC-SHA256 under a key derived from the deployment's secret). The binding hash is the one of
 * Hearth's own cursor for this list (BENCH_BARE_LIST), so the answers are equal byte for byte; the bench
 * checks that before it measures.
 */
const exact = process.env.BENCH_BARE_LIST ? (JSON.parse(process.env.BENCH_BARE_LIST) as { prefix: string; limit: number; binding: string }) : null;
if (query && exact) {
  const { rows: keys } = await pool.query<{ secret: string }>('select secret from signing_keys where id = 1');
  const key = createHmac('sha256', keys[0]!.secret).update('hearth cursor v1').digest();
  const sign = (position: unknown[]) => {
    const body = Buffer.from(JSON.stringify({ b: exact.binding, p: position })).toString('base64url');
    return `${body}.${createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url')}`;
  };
  app.get('/bare', async () => {
    const rows = (await pool.query(query.sql, query.parameters)).rows as Record<string, unknown>[];
    const page = rows.slice(0, exact.limit);
    const last = page.at(-1);
    const position = last
      ? Object.keys(last)
          .filter((name) => /^_k\d+$/.test(name))
          .map((name) => last[name])
      : [];
    return {
      success: true,
      data: page.map((row) => ({ id: `${exact.prefix}${row.id as number}`, name: row.name })),
      meta: { nextCursor: rows.length > exact.limit ? sign(position) : null },
    };
  });
}
if (query) {
  app.get('/bare-rows', async () => (await pool.query(query.sql, query.parameters)).rows);
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
    const statements = withRecordIds(
      bulk.statements,
      bulk.ids,
      given.map((id) => Number(id.slice(2))),
    );
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
if (push) {
  // The least a push must do, with none of Hearth's rules: one transaction that finds the contact by email
  // (or makes it with that identity) and upserts the activity by its dedup key.
  app.post('/bare-push', async (request, reply) => {
    const body = request.body as PushBody;
    const email = body.user.email.toLowerCase();
    const client = await pool.connect();
    try {
      await client.query('begin');
      const found = await client.query<{ contact_id: string }>(
        `select contact_id from contact_identities where community_id = $1 and type = 'email' and value = $2`,
        [push.communityId, email],
      );
      let contactId = found.rows[0]?.contact_id;
      if (!contactId) {
        const made = await client.query<{ id: string }>(`insert into contacts (community_id, name, primary_email) values ($1, $2, $3) returning id`, [
          push.communityId,
          body.user.fullName ?? email,
          email,
        ]);
        contactId = made.rows[0]!.id;
        await client.query(
          `insert into contact_identities (community_id, type, value, display_value, contact_id, source_id) values ($1, 'email', $2, $2, $3, $4)
           on conflict (community_id, type, value) do nothing`,
          [push.communityId, email, contactId, push.sourceId],
        );
      }
      const activity = await client.query<{ id: string }>(
        `insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, content)
         values ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), $7)
         on conflict (community_id, source_id, activity_type, external_id) do update set contact_id = excluded.contact_id,
           activity_time = excluded.activity_time, content = excluded.content, updated_at = now()
         returning id`,
        [push.communityId, push.sourceId, body.activityType, body.id, contactId, body.timestamp ?? null, body.content?.value ?? null],
      );
      await client.query('commit');
      return reply.code(202).send({ status: 'accepted', contactId: `c_${contactId}`, activityId: `a_${activity.rows[0]!.id}`, warnings: [] });
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  });
  // The batch route's baseline: the same least work for an array of pushes, set-based in one transaction
  // (the contacts of the batch's emails found in one statement, the missing ones made with their email
  // identity in two, the activities upserted in one), answered item by item as Hearth answers.
  app.post('/bare-push-batch', async (request, reply) => {
    const bodies = request.body as PushBody[];
    const emails = bodies.map((body) => body.user.email.toLowerCase());
    const client = await pool.connect();
    try {
      await client.query('begin');
      const found = await client.query<{ value: string; contact_id: string }>(
        `select value, contact_id from contact_identities where community_id = $1 and type = 'email' and value = any($2::text[])`,
        [push.communityId, [...new Set(emails)]],
      );
      const contactOf = new Map(found.rows.map((row) => [row.value, row.contact_id]));
      const missing = [...new Set(emails.filter((email) => !contactOf.has(email)))];
      if (missing.length) {
        const nameOf = new Map<string, string>();
        bodies.forEach((body, index) => nameOf.has(emails[index]!) || nameOf.set(emails[index]!, body.user.fullName ?? emails[index]!));
        const made = await client.query<{ id: string; primary_email: string }>(
          `insert into contacts (community_id, name, primary_email)
           select $1, t.name, t.email from unnest($2::text[], $3::text[]) as t(name, email) returning id, primary_email`,
          [push.communityId, missing.map((email) => nameOf.get(email)), missing],
        );
        for (const row of made.rows) contactOf.set(row.primary_email, row.id);
        await client.query(
          `insert into contact_identities (community_id, type, value, display_value, contact_id, source_id)
           select $1, 'email', t.email, t.email, t.id, $2 from unnest($3::text[], $4::bigint[]) as t(email, id)
           on conflict (community_id, type, value) do nothing`,
          [push.communityId, push.sourceId, made.rows.map((row) => row.primary_email), made.rows.map((row) => row.id)],
        );
      }
      // One row per dedup key, the last push of it winning, as Hearth stores a batch.
      const last = new Map(bodies.map((body, index) => [`${body.activityType}\u0000${body.id}`, index]));
      const rows = [...last.values()];
      const upserted = await client.query<{ id: string; activity_type: string; external_id: string }>(
        `insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time, content)
         select $1, $2, t.type, t.id, t.contact, coalesce(t.time, now()), t.content
         from unnest($3::text[], $4::text[], $5::bigint[], $6::timestamptz[], $7::text[]) as t(type, id, contact, time, content)
         on conflict (community_id, source_id, activity_type, external_id) do update set contact_id = excluded.contact_id,
           activity_time = excluded.activity_time, content = excluded.content, updated_at = now()
         returning id, activity_type, external_id`,
        [
          push.communityId,
          push.sourceId,
          rows.map((index) => bodies[index]!.activityType),
          rows.map((index) => bodies[index]!.id),
          rows.map((index) => contactOf.get(emails[index]!)),
          rows.map((index) => bodies[index]!.timestamp ?? null),
          rows.map((index) => bodies[index]!.content?.value ?? null),
        ],
      );
      await client.query('commit');
      const activityOf = new Map(upserted.rows.map((row) => [`${row.activity_type}\u0000${row.external_id}`, row.id]));
      return reply.code(202).send(
        bodies.map((body, index) => ({
          index,
          status: 'accepted',
          contactId: `c_${contactOf.get(emails[index]!)}`,
          activityId: `a_${activityOf.get(`${body.activityType}\u0000${body.id}`)}`,
          warnings: [],
        })),
      );
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  });
  bareBackfillRoute(app, pool, push);
}
if (process.env.BENCH_BARE_TRACKER) {
  app.post('/bare-pageview/:key', async (request, reply) => {
    const key = (request.params as { key: string }).key;
    const view = JSON.parse(request.body as string) as { url: string; anonymousId: string };
    const communityId = Number(/^pk_(\d+)_/.exec(key)?.[1] ?? 0);
    const tracker = await pool.query<{ source_id: string }>(
      `select source_id from website_trackers where community_id = $1 and public_key = $2 and revoked_at is null`,
      [communityId, key],
    );
    const sourceId = tracker.rows[0]?.source_id;
    if (!sourceId) return reply.code(404).send({ status: 'not-found' });
    await pool.query(
      `insert into website_visits (community_id, source_id, url, visit_time, anonymous_id, created_at) values ($1, $2, $3, now(), $4, now())
       on conflict (community_id, coalesce(contact_id, 0), coalesce(anonymous_id, ''), url, visit_time) do nothing`,
      [communityId, sourceId, view.url, view.anonymousId],
    );
    return reply.code(202).send({ status: 'accepted' });
  });
}
const receiver = process.env.BENCH_BARE_RECEIVER ? (JSON.parse(process.env.BENCH_BARE_RECEIVER) as { secret: string }) : null;
if (receiver) {
  await pool.query(`create table if not exists bench_bare_deliveries (
    id bigint generated by default as identity primary key,
    delivery_id text not null unique,
    event text not null,
    payload text not null,
    received_at timestamptz not null)`);
  // The body as bytes, in a scope of its own: the signature is over exactly what was sent.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 25 * 1024 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/bare-receiver', async (request, reply) => {
      const raw = request.body as Buffer;
      const given = Buffer.from(String(request.headers['x-hub-signature-256'] ?? ''));
      const expected = Buffer.from(`sha256=${createHmac('sha256', receiver.secret).update(raw).digest('hex')}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(401).send({ status: 'unauthorized' });
      const { rowCount } = await pool.query(
        `insert into bench_bare_deliveries (delivery_id, event, payload, received_at) values ($1, $2, $3, now()) on conflict (delivery_id) do nothing`,
        [String(request.headers['x-github-delivery']), String(request.headers['x-github-event']), raw.toString('utf8')],
      );
      return reply.code(202).send({ received: true, duplicate: rowCount === 0 });
    });
  });
}
await serveUntilStopped(app, pool);

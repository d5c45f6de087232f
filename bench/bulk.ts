import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import type { CapturedQuery, ServerChild } from './ipc.ts';
import { summarize, type Client, type Summary } from './load.ts';

/**
 * The bulk update figure: `POST /api/v2/contacts/bulk-update` naming 100 contacts, 25 tags to add and 5
 * custom fields, against the same statements issued directly to the database by a bare server.
 *
 * Every measured request does the full work: it names 100 contacts that no earlier request of the run named
 * (a window of the contacts in ID order), so each one writes 2,500 tag assignments and 500 custom field
 * values instead of finding them present. The bench's own tags and fields are used, and their assignments
 * and values are removed before and after the figure, so the seeded data and the other figures stay as
 * they were.
 */

export const BULK_IDS = 100;
export const BULK_TAGS = 25;

/** The bench's custom fields: one of each common value type, and the value every request sets. */
const FIELDS: { name: string; valueType: string; enumValues?: string[]; value: unknown }[] = [
  { name: 'Bench bulk plan', valueType: 'string', value: 'enterprise' },
  { name: 'Bench bulk seats', valueType: 'int', value: 250 },
  { name: 'Bench bulk score', valueType: 'number', value: 0.875 },
  { name: 'Bench bulk champion', valueType: 'boolean', value: true },
  { name: 'Bench bulk region', valueType: 'enum', enumValues: ['emea', 'amer', 'apac'], value: 'emea' },
];

export interface BulkFixtures {
  tagIds: number[];
  fields: { id: number; valueType: string; value: unknown }[];
  /** The community's contacts in ID order, in windows of 100. */
  windows: number[][];
}

/**
 * The bench's 25 member tags and 5 contact custom fields, made when missing (a seed, fresh or kept, has
 * no custom fields of its own), and the windows of contacts the requests name.
 */
export async function prepareBulk(db: Kysely<DB>, communityId: number): Promise<BulkFixtures> {
  const tagNames = Array.from({ length: BULK_TAGS }, (_, i) => `bench-bulk-${String(i + 1).padStart(2, '0')}`);
  await sql`
    insert into tags (community_id, name, entity_types)
    select ${communityId}, name, array['member'] from unnest(${tagNames}::text[]) as u(name)
    on conflict (community_id, lower(btrim(name))) do update set deleted_at = null, entity_types = array['member']`.execute(db);
  const tags = await sql<{ id: number }>`
    select id from tags where community_id = ${communityId} and name = any(${tagNames}::text[]) order by id`.execute(db);

  const fields: BulkFixtures['fields'] = [];
  for (const field of FIELDS) {
    let row = await db
      .selectFrom('custom_fields')
      .select('id')
      .where('community_id', '=', communityId)
      .where('name', '=', field.name)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    row ??= await db
      .insertInto('custom_fields')
      .values({ community_id: communityId, name: field.name, entity_types: ['contact'], value_type: field.valueType, enum_values: field.enumValues ?? [] })
      .returning('id')
      .executeTakeFirstOrThrow();
    fields.push({ id: row.id, valueType: field.valueType, value: field.value });
  }

  const contacts = await db.selectFrom('contacts').select('id').where('community_id', '=', communityId).orderBy('id').execute();
  const windows: number[][] = [];
  for (let i = 0; i + BULK_IDS <= contacts.length; i += BULK_IDS) windows.push(contacts.slice(i, i + BULK_IDS).map((row) => row.id));
  if (windows.length < 2) throw new Error(`the bulk figure needs at least ${2 * BULK_IDS} contacts; the community has ${contacts.length}`);
  return { tagIds: tags.rows.map((row) => row.id), fields, windows };
}

/** Takes off what bulk updates of the bench wrote: its tags' assignments and its fields' values. */
export async function resetBulk(db: Kysely<DB>, communityId: number, fixtures: BulkFixtures): Promise<void> {
  await sql`delete from tag_assignments where community_id = ${communityId} and tag_id = any(${fixtures.tagIds}::bigint[])`.execute(db);
  const fieldIds = fixtures.fields.map((field) => field.id);
  await sql`delete from custom_field_values where community_id = ${communityId} and custom_field_id = any(${fieldIds}::bigint[])`.execute(db);
}

/** The request body for one window of contacts. */
export function bulkBody(fixtures: BulkFixtures, window: number[]) {
  return {
    contactIds: window.map((id) => `c_${id}`),
    tagIdsToAdd: fixtures.tagIds.map((id) => `l_${id}`),
    customFields: fixtures.fields.map((field) => ({ customFieldId: `cf_${field.id}`, customFieldValue: { type: field.valueType, value: field.value } })),
  };
}

/**
 * The statements of Hearth's bulk update transaction, from `begin` to `commit`, captured from one request:
 * what the bare endpoint runs. Authentication and the rate-limit counter, before the transaction, are
 * Hearth's layers and are left out.
 */
export async function captureBulk(hearth: ServerChild, client: Client, url: string, body: unknown): Promise<CapturedQuery[]> {
  await hearth.request({ type: 'capture-start' }, 'capture-started');
  const response = await client.post(url, body);
  const { queries } = await hearth.request({ type: 'capture-stop' }, 'captured');
  if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${response.body.slice(0, 500)}`);
  const begin = queries.findIndex((query) => /^\s*begin\b/i.test(query.sql));
  const commit = queries.findIndex((query) => /^\s*commit\b/i.test(query.sql));
  if (begin < 0 || commit < begin) throw new Error(`no transaction among the ${queries.length} statements of the bulk update`);
  return queries.slice(begin, commit + 1);
}

/**
 * The captured statements with the record IDs of another request: every parameter that is the captured
 * request's list of contact IDs (in any order) becomes the new list, in ascending order as Hearth passes
 * it. Everything else (tags, fields, values) is the same in every request of the figure.
 */
export function withRecordIds(statements: CapturedQuery[], captured: number[], ids: number[]): CapturedQuery[] {
  const key = [...captured].sort((a, b) => a - b).join(',');
  const replacement = [...ids].sort((a, b) => a - b);
  const isRecordList = (value: unknown) =>
    Array.isArray(value) && value.length === captured.length && [...(value as number[])].sort((a, b) => a - b).join(',') === key;
  return statements.map((statement) => ({
    sql: statement.sql,
    parameters: statement.parameters.map((value) => (isRecordList(value) ? replacement : value)),
  }));
}

/**
 * Latency of Hearth's bulk update and of the bare endpoint's, side by side: after `warmup` rounds,
 * `samples` rounds of one request each, alternating which goes first, one request at a time. Each request
 * takes the next window of contacts; when the windows run out, the bench's writes are reset (outside the
 * timed requests) and the windows start again.
 */
export async function compareBulk(
  client: Client,
  urls: { hearth: string; bare: string },
  fixtures: BulkFixtures,
  reset: () => Promise<void>,
  options: { warmup: number; samples: number },
): Promise<{ hearth: Summary; bare: Summary; resets: number }> {
  const times = { hearth: [] as number[], bare: [] as number[] };
  let next = 0;
  let resets = 0;
  for (let round = 0; round < options.warmup + options.samples; round++) {
    const order = round % 2 === 0 ? (['hearth', 'bare'] as const) : (['bare', 'hearth'] as const);
    for (const which of order) {
      if (next === fixtures.windows.length) {
        await reset();
        resets++;
        next = 0;
      }
      const response = await client.post(urls[which], bulkBody(fixtures, fixtures.windows[next++]!));
      if (response.status !== 200) throw new Error(`POST ${urls[which]} answered ${response.status}: ${response.body.slice(0, 500)}`);
      if (round >= options.warmup) times[which].push(response.ms);
    }
  }
  return { hearth: summarize(times.hearth), bare: summarize(times.bare), resets };
}

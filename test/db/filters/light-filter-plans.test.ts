import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../../src/db/schema.ts';
import { compileLightFilter } from '../../../src/modules/filter-fields/entity-filters.ts';
import { ENGINES, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';
import type { Json } from '../../unit/filters/arbitraries.ts';

/**
 * The plans of the filters that read activities, over an analyzed community of realistic shape (2,000
 * contacts with 20 activities each over two years, and a second community as large): every read of
 * activities is a probe of one contact through activities_contact_time, never a scan or a hash of the
 * community's activities, with or without a page limit.
 */

const NOW = new Date('2024-06-15T12:00:00.000Z');
const COMMUNITY = 1;

const clause = (type: string, field: string, params: Json): Json => ({ type, field, params });

const FILTERS: [string, Json][] = [
  ['activityCount7d', clause('numberFilter', 'activityCount7d', { op: 'gte', value: 1 })],
  ['activityCount1y', clause('numberFilter', 'activityCount1y', { op: 'lt', value: 3 })],
  ['providers any', clause('stringListFilter', 'providers', { op: 'any', value: ['sig_11'] })],
  ['providers all', clause('stringListFilter', 'providers', { op: 'all', value: ['sig_11', 'sig_12'] })],
  ['providers none', clause('stringListFilter', 'providers', { op: 'none', value: ['sig_13'] })],
];

describe.each(ENGINES)('lightFilter plans on %s', (engine) => {
  let t: TestDatabase;
  let db: Kysely<DB>;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    db = t.database.db;
    // Community c holds the contacts with ids of its parity; each contact has 20 activities over 700 days.
    await sql`insert into communities (id, name) values (1, 'A'), (2, 'B')`.execute(db);
    await sql`insert into sources (community_id, id, name) select c, c * 10 + s, 'source ' || s from generate_series(1, 2) c, generate_series(1, 3) s`.execute(
      db,
    );
    await sql`insert into contacts (community_id, id, name) select 2 - (i % 2), i, 'contact ' || i from generate_series(1, 4000) i`.execute(db);
    await sql`insert into source_profiles (community_id, source_id, external_id, contact_id)
      select 2 - (i % 2), (2 - (i % 2)) * 10 + 1, 'u' || i, i from generate_series(1, 4000, 3) i`.execute(db);
    await sql`insert into activities (community_id, source_id, activity_type, external_id, contact_id, activity_time)
      select 2 - (i % 2), (2 - (i % 2)) * 10 + 1 + (i % 3), 'commented', 'e' || i, 1 + ((i - 1) % 4000),
        ${NOW.toISOString()}::timestamptz - (i % 700) * interval '1 day'
      from generate_series(1, 80000) i`.execute(db);
    await sql`analyze`.execute(db);
  }, 120_000);

  afterAll(async () => {
    await t?.drop();
  });

  async function plan(filter: Json, limit: boolean): Promise<string> {
    const fragment = compileLightFilter({ type: 'and', clauses: [filter] }, { entity: 'contact', communityId: COMMUNITY, now: NOW });
    const query = limit
      ? sql<{ 'QUERY PLAN': string }>`explain select c.id from contacts c where c.community_id = ${COMMUNITY} and ${fragment} order by c.id limit 50`
      : sql<{ 'QUERY PLAN': string }>`explain select c.id from contacts c where c.community_id = ${COMMUNITY} and ${fragment}`;
    const { rows } = await query.execute(db);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it.each(FILTERS)('%s probes each contact through activities_contact_time', async (_, filter) => {
    for (const limit of [true, false]) {
      const text = await plan(filter, limit);
      const lines = text.split('\n');
      const reads = lines.flatMap((line, index) => (/ on activities\b/.test(line) ? [index] : []));
      expect(reads.length, text).toBeGreaterThan(0);
      for (const index of reads) {
        // An index scan of one contact's activities: its condition names the contact of the outer row.
        expect(lines[index], text).toMatch(/Index (Only )?Scan using activities_contact_time on activities/);
        expect(lines[index + 1], text).toMatch(/Index Cond: \(\(community_id = '1'::bigint\) AND \(contact_id = c\.id\)/);
      }
    }
  });
});

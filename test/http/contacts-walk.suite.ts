import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/database.ts';
import { ManualClock } from '../../src/clock.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { seedCustomField, seedLeadScore } from '../helpers/seed.ts';

// WALK_CONTACTS makes a quick local run smaller, or a search for a rare fault larger. 2,500 keep every kind of
// boundary a walk meets (hundreds of ties per sort value, a third of contacts with no value, inserts on both
// sides of the position) in half the time 5,000 took.
const CONTACTS = Number(process.env.WALK_CONTACTS ?? 2_500);
const NOW = new Date('2026-06-15T12:00:00.000Z');
// A small pool of names, in several cases, so that name sorts meet many ties.
const NAMES = ['Ada Lovelace', 'ada lovelace', 'Grace Hopper', 'Alan Turing', 'ALAN TURING', 'Edsger Dijkstra', 'Barbara Liskov', 'Ken Thompson'];

type Page = { data: { id: string }[]; meta: { nextCursor: string | null } };

/**
 * Keyset paging end to end (docs/behaviour.md, Paging): walk 2,500 contacts at limits 1, 7 and 1000, with every
 * sort and both directions; every record comes back exactly once and in order, and inserts during the walk
 * cause no skip and no repeat. Sort values repeat a lot (names from a small pool, shared activity times, scores
 * and field values), and many contacts have none, so ties and nulls are where a walk would break.
 */
export function walkSuite(engine: Engine) {
  describe(`walking ${CONTACTS} contacts (${engine})`, () => {
    let t: TestApp;
    const clock = new ManualClock(NOW);
    let sorts: string[];
    let field: number;
    let score: number;
    let inserted = 0;

    async function push(id: string, index: number) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/community/v1/source/${t.sourceId}/user`,
        headers: { authorization: `Bearer ${t.token}` },
        payload: {
          id,
          fullName: NAMES[index % NAMES.length],
          ...(index % 3 === 0 ? {} : { customFields: [{ id: field, value: { type: 'int', value: index % 17 } }] }),
        },
      });
      expect(response.statusCode, response.body).toBe(202);
      return Number((response.json() as { contactId: string }).contactId.slice(2));
    }

    beforeAll(async () => {
      t = await createTestApp(engine, { clock });
      const db = t.services.db;
      field = await seedCustomField(t, { name: 'Stars', entity_types: ['contact'], value_type: 'int' });
      score = await seedLeadScore(t, { name: 'Fit', entity_type: 'contact' });
      sorts = ['id', 'name', 'latest_activity', `ls_${score}`, `cf_${field}`];

      const ids: number[] = [];
      for (let start = 0; start < CONTACTS; start += 50) {
        ids.push(...(await Promise.all(Array.from({ length: 50 }, (_, offset) => push(`u${start + offset}`, start + offset)))));
      }
      // Activities for two contacts in five, on a few shared timestamps.
      for (let start = 0; start < CONTACTS; start += 250) {
        await Promise.all(
          ids.slice(start, start + 250).flatMap((_, offset) => {
            const index = start + offset;
            if (index % 5 > 1) return [];
            return [
              t.app.inject({
                method: 'POST',
                url: `/community/v1/source/${t.sourceId}/activity`,
                headers: { authorization: `Bearer ${t.token}` },
                payload: {
                  id: `act${index}`,
                  activityType: 'made_post_topic',
                  user: { id: `u${index}` },
                  timestamp: new Date(NOW.getTime() - (index % 11) * 3_600_000).toISOString(),
                },
              }),
            ];
          }),
        );
      }
      // Lead scores (no ingestion path: the scoring engine comes later) for three contacts in five, with ties.
      await sql`insert into lead_scores (community_id, score_id, entity_type, entity_id, score, percentile)
        select ${t.communityId}, ${score}, 'contact', id, (id % 23)::numeric, (id % 100)::numeric
        from unnest(${ids}::bigint[]) as ids(id) where id % 5 < 3`.execute(db);
    }, 600_000);
    afterAll(() => t?.close());

    /** Every contact ID in the sort's order, as the database orders them (its collation decides name order). */
    async function expectedOrder(sort: string, direction: 'asc' | 'desc'): Promise<number[]> {
      const dir = sql.raw(direction);
      const key = {
        id: sql`null::int`,
        name: sql`lower(c.name)`,
        latest_activity: sql`c.latest_activity_at`,
        [`ls_${score}`]: sql`(select s.score from lead_scores s where s.community_id = c.community_id and s.score_id = ${score}
          and s.entity_type = 'contact' and s.entity_id = c.id)`,
        [`cf_${field}`]: sql`(select custom_field_sort_key(v.value) from custom_field_values v where v.community_id = c.community_id
          and v.entity_type = 'contact' and v.entity_id = c.id and v.custom_field_id = ${field})`,
      }[sort]!;
      // The list's contacts: members, not the console's users (docs/console.md).
      const rows = await sql<{ id: number }>`select c.id from contacts c where c.community_id = ${t.communityId} and not c.staff
        order by ${key} ${dir} nulls last, c.id ${dir}`.execute(t.services.db);
      return rows.rows.map((row) => row.id);
    }

    async function walk(sort: string, direction: 'asc' | 'desc', limit: number) {
      const before = new Set(await expectedOrder('id', 'asc'));
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query = new URLSearchParams({ sort, direction, limit: String(limit), ...(cursor ? { cursor } : {}) });
        const response = await t.get(`/api/v2/contacts?${query}`);
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as Page;
        seen.push(...page.data.map((contact) => Number(contact.id.slice(2))));
        cursor = page.meta.nextCursor;
        pages += 1;
        // New contacts arrive while the client pages: sort values land before and after its position.
        if (pages % Math.max(1, Math.floor(CONTACTS / limit / 8)) === 0) {
          inserted += 1;
          await push(`new${inserted}`, inserted);
        }
      } while (cursor);

      const seenSet = new Set(seen);
      expect(seenSet.size, 'no record twice').toBe(seen.length);
      const missing = [...before].filter((id) => !seenSet.has(id));
      expect(missing, 'no record that existed before the walk is skipped').toEqual([]);
      // In order: the walk is the database's order of every contact, less the new ones it passed by.
      expect(seen, 'in order').toEqual((await expectedOrder(sort, direction)).filter((id) => seenSet.has(id)));
    }

    const walks = [1, 7, 1000].flatMap((limit) => (['asc', 'desc'] as const).map((direction) => [limit, direction] as const));

    it.each(walks)(
      'limit %i, %s, every sort',
      async (limit, direction) => {
        for (const sort of sorts) await walk(sort, direction, limit);
      },
      900_000,
    );
  });
}

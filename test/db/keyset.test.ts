import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keysetPage, type SortKey } from '../../src/db/keyset.ts';
import type { CursorPosition } from '../../src/core/cursor.ts';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

/**
 * keysetPage() straight against the database, over a scratch table made in the test's own database (a
 * temporary table would not survive PostgreSQL's pooled connections). `at` is a microsecond timestamp;
 * `micros` holds the same instant as microseconds since the epoch, so expected orders are computed in
 * JavaScript without trusting the database's sort.
 */
interface ScratchTable {
  id: number;
  score: number | null;
  grp: number;
  at: Date | null;
  micros: number | null;
}

type Scratch = Kysely<{ keyset_scratch: ScratchTable }>;

interface Row {
  id: number;
  score: number | null;
  grp: number;
  micros: number | null;
}

type Direction = 'asc' | 'desc';

const BASE_SECONDS = Date.UTC(2024, 0, 1) / 1000;

/** The microsecond instant as PostgreSQL text, e.g. `2024-01-01 00:00:00.000123+00`. */
function timestampText(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  const iso = new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
  return `${iso}.${fraction}+00`;
}

/** Compares by one nullable value: nulls last in both directions. */
function compareNullable(a: number | null, b: number | null, direction: Direction): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return direction === 'asc' ? a - b : b - a;
}

function expectedOrder(rows: Row[], keys: ((row: Row) => number | null)[], direction: Direction): number[] {
  return [...rows]
    .sort((a, b) => {
      for (const key of keys) {
        const order = compareNullable(key(a), key(b), direction);
        if (order !== 0) return order;
      }
      return direction === 'asc' ? a.id - b.id : b.id - a.id;
    })
    .map((row) => row.id);
}

describe.each(ENGINES)('keysetPage (%s)', (engine) => {
  let t: TestDatabase;
  let db: Scratch;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    db = t.database.db.withTables<{ keyset_scratch: ScratchTable }>() as unknown as Scratch;
    await sql`create table keyset_scratch (
      id bigint primary key,
      score int,
      grp int not null,
      at timestamptz,
      micros bigint
    )`.execute(db);
  });
  afterAll(() => t.drop());

  beforeEach(async () => {
    await sql`truncate keyset_scratch`.execute(db);
  });

  async function insert(rows: Row[]) {
    if (rows.length === 0) return;
    await db
      .insertInto('keyset_scratch')
      .values(
        rows.map((row) => ({
          id: row.id,
          score: row.score,
          grp: row.grp,
          micros: row.micros,
          at: row.micros === null ? null : sql<Date>`${timestampText(row.micros)}::timestamptz`,
        })),
      )
      .execute();
  }

  const select = () => db.selectFrom('keyset_scratch').select(['id', 'score', 'grp', 'micros']);

  interface Walk {
    ids: number[];
    pages: Row[][];
    positions: CursorPosition[];
  }

  /** Pages through the whole table; `limits` cycles page by page. Checks page sizes and `next` as it goes. */
  async function walk(keys: SortKey[], direction: Direction, limits: number[], total: number): Promise<Walk> {
    const result: Walk = { ids: [], pages: [], positions: [] };
    let after: CursorPosition | null = null;
    for (let index = 0; ; index++) {
      const limit = limits[index % limits.length]!;
      const request = { keys, id: sql`id`, direction, limit, after };
      const page: { rows: Row[]; next: CursorPosition | null } = await keysetPage(select(), request);
      // The same page from a source compiled once per shape (its value in the place of a stand-in).
      const source = {
        db,
        shape: `scratch ${keys.map((key) => keyNames.get(key)).join(' ')}`,
        values: { above: 0 },
        build: (values: { above: number }) => select().where('id', '>', values.above),
      };
      expect(await keysetPage(source, request)).toEqual(page);
      result.pages.push(page.rows);
      result.ids.push(...page.rows.map((row) => row.id));
      // Rows come back without the helper columns.
      for (const row of page.rows)
        expect(
          Object.keys(row)
            .filter((key) => !key.startsWith('_k'))
            .sort(),
        ).toEqual(['grp', 'id', 'micros', 'score']);
      if (page.next === null) {
        expect(page.rows.length, 'last page').toBeLessThanOrEqual(limit);
        expect(result.ids.length, 'next is null before the end').toBe(total);
        return result;
      }
      expect(page.rows, 'a page with a next position is full').toHaveLength(limit);
      expect(result.ids.length, 'next is set on the last page').toBeLessThan(total);
      expect(result.pages.length, 'the walk does not end').toBeLessThanOrEqual(total + 1);
      result.positions.push(page.next);
      after = page.next;
    }
  }

  const score: SortKey = { expr: sql`score`, nullable: true };
  const grp: SortKey = { expr: sql`grp` };
  const at: SortKey = { expr: sql`at`, nullable: true };
  const atNotNull: SortKey = { expr: sql`at` };
  const keyNames = new Map([
    [score, 'score'],
    [grp, 'grp'],
    [at, 'at'],
    [atNotNull, 'at not null'],
  ]);

  // 40 rows: scores with many duplicates and nulls, IDs not in score order and with gaps.
  const MIXED: Row[] = Array.from({ length: 40 }, (_, index) => {
    const id = 1000 - index * 17;
    return {
      id,
      score: index % 5 === 0 ? null : (index * 7) % 4,
      grp: index % 3,
      micros: index % 6 === 0 ? null : BASE_SECONDS * 1_000_000 + ((index * 11) % 9),
    };
  });

  describe.each<Direction>(['asc', 'desc'])('%s', (direction) => {
    it.each([1, 2, 3, 7, 40, 41, 100])('a nullable key with duplicates: nulls last, ties by ID, at limit %i', async (limit) => {
      await insert(MIXED);
      const { ids, positions } = await walk([score], direction, [limit], MIXED.length);
      expect(ids).toEqual(expectedOrder(MIXED, [(row) => row.score], direction));
      // Positions are the sort value and the ID as text; a null sort value stays null.
      for (const position of positions) {
        const row = MIXED.find((candidate) => String(candidate.id) === position[1])!;
        expect(position).toEqual([row.score === null ? null : String(row.score), String(row.id)]);
      }
      // The walk passes from non-null scores into the nulls (except when one page holds everything).
      if (limit < 8) expect(positions.some((position) => position[0] === null)).toBe(true);
    });

    it.each([1, 4, 13])('a non-nullable key with duplicates: ties by ID, at limit %i', async (limit) => {
      await insert(MIXED);
      const { ids } = await walk([grp], direction, [limit], MIXED.length);
      expect(ids).toEqual(expectedOrder(MIXED, [(row) => row.grp], direction));
    });

    it.each([1, 3, 5])('two keys, a nullable one then one with duplicates, at limit %i', async (limit) => {
      await insert(MIXED);
      const { ids } = await walk([score, grp], direction, [limit], MIXED.length);
      expect(ids).toEqual(expectedOrder(MIXED, [(row) => row.score, (row) => row.grp], direction));
    });

    it('a limit that changes from page to page', async () => {
      await insert(MIXED);
      const { ids, pages } = await walk([score], direction, [1, 6, 2, 11], MIXED.length);
      expect(ids).toEqual(expectedOrder(MIXED, [(row) => row.score], direction));
      expect(pages.slice(0, 4).map((page) => page.length)).toEqual([1, 6, 2, 11]);
    });

    it('timestamps a microsecond apart are neither repeated nor skipped (non-nullable key)', async () => {
      // 30 rows inside one millisecond, some sharing an instant: a position rounded to milliseconds (as a
      // JavaScript Date would be) would repeat or skip them.
      const base = BASE_SECONDS * 1_000_000 + 500_000;
      const rows: Row[] = Array.from({ length: 30 }, (_, index) => ({
        id: 500 - index * 3,
        score: null,
        grp: 0,
        micros: base + ((index * 13) % 23),
      }));
      await insert(rows);
      for (const limit of [1, 2, 4, 7]) {
        const { ids, positions } = await walk([atNotNull], direction, [limit], rows.length);
        expect(ids).toEqual(expectedOrder(rows, [(row) => row.micros], direction));
        for (const position of positions) {
          const row = rows.find((candidate) => String(candidate.id) === position[1])!;
          // PostgreSQL prints the fraction without trailing zeros; all six digits must survive.
          const fraction = /:\d\d(?:\.(\d{1,6}))?[+-]/.exec(String(position[0]))?.[1] ?? '';
          expect(fraction.padEnd(6, '0')).toBe(String(row.micros! % 1_000_000).padStart(6, '0'));
        }
      }
    });

    it('timestamps a microsecond apart are neither repeated nor skipped (nullable key)', async () => {
      await insert(MIXED);
      for (const limit of [1, 2, 5]) {
        const { ids } = await walk([at], direction, [limit], MIXED.length);
        expect(ids).toEqual(expectedOrder(MIXED, [(row) => row.micros], direction));
      }
    });

    it('timestamps across a second boundary, with the session in another time zone', async () => {
      const boundary = (BASE_SECONDS + 1) * 1_000_000;
      const rows: Row[] = [-2, -1, -1, 0, 0, 1, 999, 1000, 1001].map((offset, index) => ({ id: index + 1, score: null, grp: 0, micros: boundary + offset }));
      await insert(rows);
      await db.connection().execute(async (connection) => {
        // The positions are printed in the session's zone; they must still compare exactly.
        await sql`set time zone 'Asia/Kathmandu'`.execute(connection);
        try {
          const ids: number[] = [];
          let after: CursorPosition | null = null;
          do {
            const page: { rows: Row[]; next: CursorPosition | null } = await keysetPage(
              connection.selectFrom('keyset_scratch').select(['id', 'score', 'grp', 'micros']),
              { keys: [atNotNull], id: sql`id`, direction, limit: 1, after },
            );
            ids.push(...page.rows.map((row) => row.id));
            if (page.next) expect(String(page.next[0])).toMatch(/\+05:45$/);
            after = page.next;
          } while (after);
          expect(ids).toEqual(expectedOrder(rows, [(row) => row.micros], direction));
        } finally {
          await sql`reset time zone`.execute(connection);
        }
      });
    });

    it('an empty table is one empty page with no next position', async () => {
      const page = await keysetPage(select(), { keys: [score], id: sql`id`, direction, limit: 5, after: null });
      expect(page).toEqual({ rows: [], next: null, last: null });
    });

    it('a full last page has no next position (no trailing empty page)', async () => {
      await insert(MIXED.slice(0, 10));
      const first = await keysetPage(select(), { keys: [score], id: sql`id`, direction, limit: 5, after: null });
      expect(first.rows).toHaveLength(5);
      expect(first.next).not.toBeNull();
      const second = await keysetPage(select(), { keys: [score], id: sql`id`, direction, limit: 5, after: first.next });
      expect(second.rows).toHaveLength(5);
      expect(second.next).toBeNull();
    });

    it("respects the query's own filter", async () => {
      await insert(MIXED);
      const query = select().where('grp', '=', 1);
      const subset = MIXED.filter((row) => row.grp === 1);
      const ids: number[] = [];
      let after: CursorPosition | null = null;
      do {
        const page: { rows: Row[]; next: CursorPosition | null } = await keysetPage(query, { keys: [score], id: sql`id`, direction, limit: 2, after });
        ids.push(...page.rows.map((row) => row.id));
        after = page.next;
      } while (after);
      expect(ids).toEqual(expectedOrder(subset, [(row) => row.score], direction));
    });

    it('rows inserted mid-walk do not cause a skip or a repeat', async () => {
      await insert(MIXED);
      const original = expectedOrder(MIXED, [(row) => row.score], direction);
      const ids: number[] = [];
      let after: CursorPosition | null = null;
      let nextId = 5000;
      do {
        const page: { rows: Row[]; next: CursorPosition | null } = await keysetPage(select(), { keys: [score], id: sql`id`, direction, limit: 3, after });
        ids.push(...page.rows.map((row) => row.id));
        after = page.next;
        // One row with each score, and one with none, after every page.
        await insert([0, 1, 2, 3, null].map((value) => ({ id: nextId++, score: value, grp: 0, micros: null })));
      } while (after);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => id < 5000)).toEqual(original);
    });

    it('a position of the wrong length is refused', async () => {
      await expect(keysetPage(select(), { keys: [score], id: sql`id`, direction, limit: 5, after: ['1'] })).rejects.toMatchObject({
        kind: 'invalid',
        code: 'invalid_cursor',
      });
    });
  });

  it('matches a JavaScript sort for random data, keys, limits and directions (property)', async () => {
    const row = fc.record({
      score: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null, freq: 3 }),
      grp: fc.integer({ min: 0, max: 1 }),
      micros: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null, freq: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 25 }),
        fc.array(row, { minLength: 25, maxLength: 25 }),
        fc.subarray(['score', 'grp', 'at'] as const, { minLength: 1 }),
        fc.constantFrom<Direction>('asc', 'desc'),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
        async (ids, values, keyNames, direction, limits) => {
          await sql`truncate keyset_scratch`.execute(db);
          const rows: Row[] = ids.map((id, index) => {
            const value = values[index]!;
            return { id, ...value, micros: value.micros === null ? null : BASE_SECONDS * 1_000_000 + 999 + value.micros };
          });
          await insert(rows);
          const keys = keyNames.map((name) => ({ score, grp, at })[name]);
          const accessors = keyNames.map((name) => (item: Row) => (name === 'score' ? item.score : name === 'grp' ? item.grp : item.micros));
          const { ids: walked } = await walk(keys, direction, limits, rows.length);
          expect(walked).toEqual(expectedOrder(rows, accessors, direction));
        },
      ),
      { numRuns: engine === 'pglite' ? 40 : 25 },
    );
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/core/cursor.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor } from '../../src/core/writer.ts';

type Direction = 'asc' | 'desc';

interface Provider {
  id: string;
  name: string;
  serviceName: string;
}

/** Seeded providers: IDs 1 + 3g (gaps between them), every 11th hidden; with the bootstrapped "API" source, 2,500 visible. */
const SEEDED = 2748;
const seededId = (g: number) => 1 + 3 * g;
const seededVisible = (g: number) => g % 11 !== 0;
const seededService = (g: number) => (g % 4 === 0 ? 'github' : 'api');

const PROVIDERS_BINDING = { list: 'providers', sort: 'id', filters: {} };

const query = (params: Record<string, string | number | null | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, String(value));
  return `/api/v2/providers?${search}`;
};

/** Replaces the character at `index` with another base64url character. */
const flip = (text: string, index: number) => text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);

describe.each(ENGINES)('GET /api/v2/providers (%s)', (engine) => {
  // One app for the whole file: the walks below make ~5,700 requests per engine.
  let t: TestApp;
  /** Every visible provider of the bootstrapped community, in ascending ID order. */
  let providers: Provider[];
  let hiddenIds: Set<string>;

  beforeAll(async () => {
    t = await createTestApp(engine);
    await sql`
      insert into sources (community_id, id, name, service_name, visible)
      select ${t.communityId}::bigint, 1 + 3 * g, 'Provider ' || g, case when g % 4 = 0 then 'github' else 'api' end, g % 11 <> 0
      from generate_series(1, ${SEEDED}::int) g`.execute(t.services.db);
    providers = [{ id: `sig_${t.sourceId}`, name: 'API', serviceName: 'api' }];
    hiddenIds = new Set();
    for (let g = 1; g <= SEEDED; g++) {
      if (seededVisible(g)) providers.push({ id: `sig_${seededId(g)}`, name: `Provider ${g}`, serviceName: seededService(g) });
      else hiddenIds.add(`sig_${seededId(g)}`);
    }
  }, 120_000);
  afterAll(() => t?.close());

  const ordered = (direction: Direction) => (direction === 'asc' ? providers : [...providers].reverse());

  /**
   * Walks the whole list; `limits` cycles page by page. Checks every page's envelope and size, and that
   * `meta.nextCursor` is null on the last page and only there. Returns the providers in the order served.
   */
  async function walk(direction: Direction, limits: number[], total = providers.length, token = t.token) {
    const seen: Provider[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; ; page++) {
      const limit = limits[page % limits.length]!;
      const response = await t.get(query({ limit, direction, cursor }), token);
      if (response.statusCode !== 200) throw new Error(`page ${page}: ${response.statusCode} ${response.body}`);
      const body = response.json() as { success: boolean; data: Provider[]; meta: { nextCursor: string | null } };
      expect(Object.keys(body).sort()).toEqual(['data', 'meta', 'success']);
      expect(body.success).toBe(true);
      expect(Object.keys(body.meta)).toEqual(['nextCursor']);
      seen.push(...body.data);
      sizes.push(body.data.length);
      cursor = body.meta.nextCursor;
      if (cursor === null) {
        expect(body.data.length, `last page ${page}`).toBeGreaterThan(0);
        expect(seen.length, `nextCursor is null on page ${page}, before the end`).toBe(total);
        return { seen, sizes };
      }
      expect(typeof cursor).toBe('string');
      expect(body.data.length, `page ${page} has a nextCursor but is not full`).toBe(limit);
      expect(seen.length, `nextCursor is set on page ${page}, after the end`).toBeLessThan(total);
    }
  }

  it('has 2,500 visible providers and 249 hidden sources to page through', async () => {
    expect(providers).toHaveLength(2500);
    expect(hiddenIds.size).toBe(249);
    const counts = await t.services.db
      .selectFrom('sources')
      .select([sql<number>`count(*) filter (where visible)`.as('visible'), sql<number>`count(*) filter (where not visible)`.as('hidden')])
      .where('community_id', '=', t.communityId)
      .executeTakeFirstOrThrow();
    expect(counts).toEqual({ visible: 2500, hidden: 249 });
  });

  // Both directions walk at once: on PostgreSQL their queries overlap on the pool's connections.
  it.each([1, 7, 500, 1000])(
    'a walk at limit %i returns every provider once, in ascending and in descending ID order',
    async (limit) => {
      const walks = await Promise.all((['asc', 'desc'] as const).map(async (direction) => ({ direction, ...(await walk(direction, [limit])) })));
      for (const { direction, seen, sizes } of walks) {
        expect(seen, direction).toEqual(ordered(direction));
        expect(sizes, direction).toHaveLength(Math.ceil(2500 / limit));
        // Hidden sources never appear (implied by the equality; said outright for the reader).
        expect(
          seen.filter((provider) => hiddenIds.has(provider.id)),
          direction,
        ).toEqual([]);
      }
    },
    300_000,
  ); // ~5,000 requests at limit 1: slow on a loaded 2-core machine, never a time assertion

  describe.each<Direction>(['asc', 'desc'])('direction=%s', (direction) => {
    it('a walk whose limit changes from page to page returns every provider once, in ID order', async () => {
      const limits = [3, 1, 250, 7, 1000, 2];
      const { seen, sizes } = await walk(direction, limits);
      expect(seen).toEqual(ordered(direction));
      expect(sizes.slice(0, 6)).toEqual(limits);
    });

    it('the first page without a cursor starts at the lowest (asc) or highest (desc) ID', async () => {
      const response = await t.get(query({ limit: 3, direction }));
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toEqual(ordered(direction).slice(0, 3));
    });
  });

  it('defaults to ascending order and 50 records', async () => {
    const response = await t.get('/api/v2/providers');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data).toEqual(providers.slice(0, 50));
    expect(body.meta.nextCursor).toEqual(expect.any(String));
    const next = await t.get(query({ cursor: body.meta.nextCursor }));
    expect(next.json().data).toEqual(providers.slice(50, 100));
  });

  describe('cursors', () => {
    let cursor: string;
    let body: string;
    let signature: string;
    beforeAll(async () => {
      const response = await t.get(query({ limit: 7, direction: 'asc' }));
      cursor = response.json().meta.nextCursor;
      [body, signature] = cursor.split('.') as [string, string];
    });

    const expectInvalidCursor = async (value: string, direction: Direction = 'asc') => {
      const response = await t.get(query({ limit: 7, direction, cursor: value }));
      expect(response.statusCode, `cursor ${JSON.stringify(value)}`).toBe(400);
      expect(response.json()).toStrictEqual({ success: false, error: { code: 'invalid_cursor', message: expect.any(String) } });
      return response.json().error.message as string;
    };

    it('the intact cursor is accepted (the control for the cases below)', async () => {
      const response = await t.get(query({ limit: 7, direction: 'asc', cursor }));
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toEqual(providers.slice(7, 14));
    });

    it('a character flipped in the body is refused', async () => {
      for (const index of [0, Math.floor(body.length / 2), body.length - 1]) {
        const message = await expectInvalidCursor(`${flip(body, index)}.${signature}`);
        expect(message).toMatch(/altered|not issued/);
      }
    });

    it('a character flipped in the signature is refused, the last one included', async () => {
      for (const index of [0, Math.floor(signature.length / 2), signature.length - 1]) {
        await expectInvalidCursor(`${body}.${flip(signature, index)}`);
      }
    });

    it('a truncated cursor is refused', async () => {
      await expectInvalidCursor(cursor.slice(0, -1));
      await expectInvalidCursor(cursor.slice(0, -5));
      await expectInvalidCursor(cursor.slice(0, cursor.indexOf('.') + 1));
      await expectInvalidCursor(body);
      await expectInvalidCursor(cursor.slice(3));
    });

    it.each([
      ['a word', 'garbage'],
      ['two parts of garbage', 'abc.def'],
      ['dots', '...'],
      ['a bearer token', 'eyJhbGciOiJIUzI1NiJ9.eyJqdGkiOiJ4In0.c2lnbmF0dXJl'],
      ['non-ASCII text', 'é.ü'],
      ['JSON', '{"b":"x","p":["5"]}'],
    ])('garbage (%s) is refused', async (_name, value) => {
      await expectInvalidCursor(value);
    });

    it('a cursor signed with another secret is refused', async () => {
      const forged = new CursorCodec('not the service secret').encode({ ...PROVIDERS_BINDING, community: t.communityId, direction: 'asc' }, [
        providers[100]!.id.slice(4),
      ]);
      await expectInvalidCursor(forged);
    });

    it('a cursor of another list is refused', async () => {
      const other = t.services.cursors.encode({ community: t.communityId, list: 'contacts', sort: 'id', direction: 'asc', filters: {} }, ['5']);
      const message = await expectInvalidCursor(other);
      expect(message).toMatch(/different sort, direction or filter/);
    });

    it('a cursor reused with the other direction is refused, both ways', async () => {
      const message = await expectInvalidCursor(cursor, 'desc');
      expect(message).toMatch(/different sort, direction or filter/);
      const descending = (await t.get(query({ limit: 7, direction: 'desc' }))).json().meta.nextCursor as string;
      await expectInvalidCursor(descending, 'asc');
      // Each is fine with its own direction.
      expect((await t.get(query({ limit: 7, direction: 'desc', cursor: descending }))).json().data).toEqual(ordered('desc').slice(7, 14));
    });

    it('an empty cursor is invalid_parameters', async () => {
      const response = await t.get('/api/v2/providers?cursor=');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toStrictEqual({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('cursor') } });
    });
  });

  describe('parameters', () => {
    it.each(['0', '1001', 'abc', '-1', '1.5', '1e9'])('limit=%s is 400 invalid_parameters', async (limit) => {
      const response = await t.get(`/api/v2/providers?limit=${limit}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toStrictEqual({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('limit') } });
    });

    it('limit=1000 is accepted (the upper bound)', async () => {
      const response = await t.get('/api/v2/providers?limit=1000');
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toHaveLength(1000);
    });

    it('direction=sideways is 400 invalid_parameters', async () => {
      const response = await t.get('/api/v2/providers?direction=sideways');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toStrictEqual({ success: false, error: { code: 'invalid_parameters', message: expect.stringContaining('direction') } });
    });

    it.each([
      ['alone', '/api/v2/providers?sort=name', 'sort'],
      ['next to valid ones', '/api/v2/providers?limit=5&direction=desc&Limit=6', 'Limit'],
      ['with an empty value', '/api/v2/providers?filter=', 'filter'],
    ])('an unknown query parameter (%s) is 400 naming it', async (_name, url, parameter) => {
      const response = await t.get(url);
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body).toStrictEqual({ success: false, error: { code: 'invalid_parameters', message: expect.any(String) } });
      expect(body.error.message).toContain(`"${parameter}"`);
    });

    it('a token without contacts:read is refused with 403', async () => {
      const response = await t.get('/api/v2/providers', await t.issueToken(['segments:read']));
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ status: 'forbidden' });
    });
  });

  describe('inserts during a walk', () => {
    // A community of its own, so the inserts leave the 2,500 above alone. 60 providers at IDs 1000..60000.
    let communityId: number;
    let token: string;
    let original: number[];

    beforeAll(async () => {
      ({ communityId } = await t.services.communities.create('Walkers', cliActor()));
      token = await t.issueToken(['read'], communityId);
      await sql`
        insert into sources (community_id, id, name)
        select ${communityId}::bigint, 1000 * g, 'Original ' || g from generate_series(1, 60) g`.execute(t.services.db);
      original = Array.from({ length: 60 }, (_, index) => 1000 * (index + 1));
    });

    /** Inserts providers by ID (skipping IDs already taken); returns the IDs inserted. */
    async function insertProviders(ids: number[], visible = true): Promise<number[]> {
      const rows = await t.services.db
        .insertInto('sources')
        .values(ids.map((id) => ({ community_id: communityId, id, name: `Inserted ${id}`, visible })))
        .onConflict((conflict) => conflict.doNothing())
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    }

    it.each<Direction>(['asc', 'desc'])('cause no skip and no repeat (direction=%s)', async (direction) => {
      const step = direction === 'asc' ? 1 : -1;
      const ahead: number[] = [];
      const behind: number[] = [];
      const hiddenAhead: number[] = [];
      const seen: number[] = [];
      let cursor: string | null = null;
      let page = 0;
      do {
        const response = await t.get(query({ limit: 4, direction, cursor }), token);
        expect(response.statusCode).toBe(200);
        const body = response.json() as { data: Provider[]; meta: { nextCursor: string | null } };
        seen.push(...body.data.map((provider) => Number(provider.id.slice(4))));
        cursor = body.meta.nextCursor;
        if (cursor !== null) {
          const position = seen.at(-1)!;
          // Between pages: new providers just ahead of the position and further on, and just behind it.
          ahead.push(...(await insertProviders([position + step, position + 7 * step + page * step])));
          behind.push(...(await insertProviders([position - step, position - 3 * step])));
          if (page % 3 === 0) hiddenAhead.push(...(await insertProviders([position + 2 * step], false)));
        }
        page++;
      } while (cursor !== null && page < 200);

      expect(cursor).toBeNull();
      expect(behind.length).toBeGreaterThan(10);
      expect(ahead.length).toBeGreaterThan(10);
      // No repeat, strictly in order, every original record exactly once.
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort((a, b) => (a - b) * step));
      expect(seen.filter((id) => id % 1000 === 0 && id <= 60000)).toEqual(direction === 'asc' ? original : [...original].reverse());
      // Keyset semantics: records inserted ahead of the position are found, those behind it are not, hidden ones never.
      expect(seen).toEqual(expect.arrayContaining(ahead));
      expect(seen.filter((id) => behind.includes(id))).toEqual([]);
      expect(seen.filter((id) => hiddenAhead.includes(id))).toEqual([]);
    });
  });
});

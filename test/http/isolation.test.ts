import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

interface Named {
  id: string;
  name?: string;
  displayName?: string;
}

describe.each(ENGINES)('community isolation (%s)', (engine) => {
  let t: TestApp;
  /** A: the bootstrapped "Default" community; B: a second one, "Beta". */
  let a: { id: number; admin: string; sources: string[] };
  let b: { id: number; admin: string; reader: string; sources: string[] };

  const send = (method: 'GET' | 'DELETE', url: string, token: string): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });

  const jtiOf = async (token: string) => (await t.get('/api/v2/api-token-status', token)).json().jti as string;

  async function providers(token: string): Promise<Named[]> {
    const response = await t.get('/api/v2/providers?limit=1000', token);
    expect(response.statusCode).toBe(200);
    expect(response.json().meta.nextCursor).toBeNull();
    return response.json().data;
  }

  beforeAll(async () => {
    t = await createTestApp(engine);
    const { communityId } = await t.services.communities.create('Beta', cliActor());
    a = { id: t.communityId, admin: t.token, sources: [`sig_${t.sourceId}`] };
    b = {
      id: communityId,
      admin: await t.issueToken(['read', 'write', 'admin'], communityId),
      reader: await t.issueToken(['read'], communityId),
      sources: [],
    };
    // Sources interleave by ID across the two communities; one name exists in both.
    for (const [community, name] of [
      [a, 'A Slack'],
      [b, 'B GitHub'],
      [a, 'Shared name'],
      [b, 'Shared name'],
      [b, 'B Discord'],
    ] as const) {
      const source = await t.services.sources.create(cliWriter(community.id), { name });
      community.sources.push(`sig_${source.id}`);
    }
    await t.services.activityTypes.add(cliWriter(a.id), { id: 'a_only_type', displayName: 'Only in A' });
    await t.services.activityTypes.add(cliWriter(a.id), { id: 'both_type', displayName: "A's version", category: 'content' });
    await t.services.activityTypes.add(cliWriter(b.id), { id: 'b_only_type', displayName: 'Only in B' });
    await t.services.activityTypes.add(cliWriter(b.id), { id: 'both_type', displayName: "B's version" });
  });
  afterAll(() => t?.close());

  it('the communities are distinct', () => {
    expect(b.id).not.toBe(a.id);
  });

  describe('providers', () => {
    it("B's token lists B's providers only", async () => {
      const listed = await providers(b.reader);
      expect(listed.map((provider) => provider.id)).toEqual(b.sources);
      expect(listed.map((provider) => provider.name)).toEqual(['B GitHub', 'Shared name', 'B Discord']);
    });

    it("A's token lists A's providers only", async () => {
      const listed = await providers(a.admin);
      expect(listed.map((provider) => provider.id)).toEqual(a.sources);
      expect(listed.map((provider) => provider.name)).toEqual(['API', 'A Slack', 'Shared name']);
    });

    it("B's walk at limit 1 never leaves B, in either direction", async () => {
      for (const direction of ['asc', 'desc'] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const url: string = `/api/v2/providers?limit=1&direction=${direction}${cursor ? `&cursor=${cursor}` : ''}`;
          const body = (await t.get(url, b.reader)).json() as { data: Named[]; meta: { nextCursor: string | null } };
          seen.push(...body.data.map((provider) => provider.id));
          cursor = body.meta.nextCursor;
        } while (cursor);
        expect(seen).toEqual(direction === 'asc' ? b.sources : [...b.sources].reverse());
      }
    });

    it("a cursor made on A's list is refused on B's", async () => {
      const page = (await t.get('/api/v2/providers?limit=1', a.admin)).json();
      expect(page.meta.nextCursor).toEqual(expect.any(String));
      const response = await t.get(`/api/v2/providers?limit=1000&cursor=${page.meta.nextCursor}`, b.reader);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_cursor');
    });

    it('the admin source list is per community', async () => {
      const listed = (await t.get('/api/v2/admin/sources', b.admin)).json().data as Named[];
      expect(listed.map((source) => source.id)).toEqual(b.sources);
    });
  });

  describe('activity types', () => {
    const own = (list: Named[]) => list.filter((type) => ['a_only_type', 'b_only_type', 'both_type'].includes(type.id));

    it.each(['/api/v2/activity-types', '/community/v1/activityTypes'])('B sees its own custom types only (%s)', async (url) => {
      const response = await t.get(url, b.reader);
      expect(response.statusCode).toBe(200);
      const list = (url.startsWith('/api/v2') ? response.json().data : response.json()) as Named[];
      expect(own(list)).toEqual([
        { id: 'b_only_type', displayName: 'Only in B' },
        { id: 'both_type', displayName: "B's version" },
      ]);
      // The catalog is there for everyone.
      expect(list.map((type) => type.id)).toContain('commit');
    });

    it.each(['/api/v2/activity-types', '/community/v1/activityTypes'])('A sees its own custom types only (%s)', async (url) => {
      const response = await t.get(url, a.admin);
      expect(response.statusCode).toBe(200);
      const list = (url.startsWith('/api/v2') ? response.json().data : response.json()) as Named[];
      expect(own(list)).toEqual([
        { id: 'a_only_type', displayName: 'Only in A' },
        { id: 'both_type', displayName: "A's version" },
      ]);
    });
  });

  describe('who am I', () => {
    it.each(['/api/v2/api-token-status', '/community/v1/api-token-status'])("%s names B for B's token, A for A's", async (url) => {
      const forB = await t.get(url, b.reader);
      expect(forB.statusCode).toBe(200);
      expect(forB.json()).toEqual({ jti: expect.any(String), communityName: 'Beta', communityId: `com_${b.id}` });
      const forA = await t.get(url, a.admin);
      expect(forA.json()).toEqual({ jti: expect.any(String), communityName: 'Default', communityId: `com_${a.id}` });
      expect(forB.json().jti).not.toBe(forA.json().jti);
    });

    it("/api/v2/me answers with B's community for B's token", async () => {
      const response = await t.get('/api/v2/me', b.reader);
      expect(response.statusCode).toBe(200);
      const me = response.json().data;
      expect(me.communityId).toBe(`com_${b.id}`);
      expect(me.company.name).toBe('Beta');
      const ofA = (await t.get('/api/v2/me', a.admin)).json().data;
      expect(ofA.communityId).toBe(`com_${a.id}`);
      expect(ofA.company.name).toBe('Default');
    });
  });

  describe('token administration', () => {
    it("A's admin token cannot revoke B's token: 404, and the token keeps working", async () => {
      const jti = await jtiOf(b.reader);
      const response = await send('DELETE', `/api/v2/admin/tokens/${jti}`, a.admin);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toStrictEqual({ success: false, error: { code: 'token_not_found', message: expect.any(String) } });
      expect((await t.get('/api/v2/api-token-status', b.reader)).statusCode).toBe(200);
      const row = await t.services.db.selectFrom('api_tokens').select('revoked_at').where('jti', '=', jti).executeTakeFirstOrThrow();
      expect(row.revoked_at).toBeNull();
    });

    it("B's admin token can revoke a B token (the control for the case above)", async () => {
      const victim = await t.issueToken(['read'], b.id);
      const jti = await jtiOf(victim);
      const response = await send('DELETE', `/api/v2/admin/tokens/${jti}`, b.admin);
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({ jti, revokedAt: expect.any(String) });
      expect((await t.get('/api/v2/api-token-status', victim)).statusCode).toBe(403);
    });

    it("B's admin token cannot revoke A's token either", async () => {
      const jti = await jtiOf(a.admin);
      const response = await send('DELETE', `/api/v2/admin/tokens/${jti}`, b.admin);
      expect(response.statusCode).toBe(404);
      expect((await t.get('/api/v2/api-token-status', a.admin)).statusCode).toBe(200);
    });

    it("GET /api/v2/admin/tokens lists only the caller's community's tokens", async () => {
      const inDatabase = await t.services.db.selectFrom('api_tokens').select(['jti', 'community_id']).execute();
      const jtisOf = (communityId: number) =>
        inDatabase
          .filter((row) => row.community_id === communityId)
          .map((row) => row.jti)
          .sort();
      expect(jtisOf(a.id).length).toBeGreaterThan(0);
      expect(jtisOf(b.id).length).toBeGreaterThan(1);

      for (const [community, token] of [
        [a.id, a.admin],
        [b.id, b.admin],
      ] as const) {
        const response = await t.get('/api/v2/admin/tokens', token);
        expect(response.statusCode).toBe(200);
        const listed = (response.json().data as { jti: string }[]).map((token) => token.jti).sort();
        expect(listed).toEqual(jtisOf(community));
      }
      expect(((await t.get('/api/v2/admin/tokens', a.admin)).json().data as { jti: string }[]).map((token) => token.jti)).not.toContain(await jtiOf(b.admin));
    });
  });
});

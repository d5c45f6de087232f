import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.ts';
import { assignTags, resolveTagRefs, unassignTags, type TagRef } from '../../src/modules/tags/tag-assignment.service.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';

describe.each(ENGINES)('tag service API for ingestion (%s)', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let a: number;
  let b: number;

  async function insertTag(communityId: number, name: string, entityTypes: string[], deleted = false): Promise<number> {
    const row = await db
      .insertInto('tags')
      .values({ community_id: communityId, name, entity_types: entityTypes, deleted_at: deleted ? new Date() : null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function tagRow(communityId: number, id: number) {
    return db
      .selectFrom('tags')
      .select(['name', 'entity_types as entityTypes', 'deleted_at as deletedAt'])
      .where('community_id', '=', communityId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  async function tagsNamed(communityId: number, name: string) {
    return db
      .selectFrom('tags')
      .select(['id', 'name'])
      .where('community_id', '=', communityId)
      .where(sql<boolean>`lower(btrim(name)) = lower(${name})`)
      .execute();
  }

  async function assigned(communityId: number, entityType: string, entityId: number): Promise<number[]> {
    const rows = await db
      .selectFrom('tag_assignments')
      .select('tag_id')
      .where('community_id', '=', communityId)
      .where('entity_type', '=', entityType)
      .where('entity_id', '=', entityId)
      .orderBy('tag_id')
      .execute();
    return rows.map((row) => row.tag_id);
  }

  const resolve = (communityId: number, refs: TagRef[], entityType: 'member' | 'activity' | 'company' = 'member') =>
    db.transaction().execute((trx) => resolveTagRefs(trx, communityId, refs, entityType));

  beforeAll(async () => {
    t = await createTestApp(engine);
    db = t.services.db;
    a = t.communityId;
    b = (await t.services.communities.create('Beta', cliActor())).communityId;
  });
  afterAll(() => t?.close());

  describe('resolveTagRefs by ID', () => {
    it('accepts l_N and the bare number, in the order named, without duplicates', async () => {
      const one = await insertTag(a, 'By id one', ['member']);
      const two = await insertTag(a, 'By id two', ['member', 'company']);
      const result = await resolve(a, [
        { type: 'id', id: `l_${two}` },
        { type: 'id', id: String(one) },
        { type: 'id', id: `l_${one}` },
      ]);
      expect(result).toEqual({ tagIds: [two, one], invalid: [] });
    });

    it('lists as invalid: malformed, unknown, deleted, another entity type, another community', async () => {
      const good = await insertTag(a, 'Good one', ['member']);
      const deleted = await insertTag(a, 'Deleted one', ['member'], true);
      const companyOnly = await insertTag(a, 'Company only', ['company']);
      const foreign = await insertTag(b, 'Foreign one', ['member']);
      const refs: TagRef[] = [
        { type: 'id', id: 'l_x' },
        { type: 'id', id: 'c_5' },
        { type: 'id', id: '' },
        { type: 'id', id: 'l_99999999999999999' },
        { type: 'id', id: 'l_987654321' },
        { type: 'id', id: `l_${deleted}` },
        { type: 'id', id: `l_${companyOnly}` },
        { type: 'id', id: `l_${foreign}` },
        { type: 'id', id: `l_${good}` },
      ];
      const result = await resolve(a, refs);
      expect(result.tagIds).toEqual([good]);
      expect(result.invalid).toEqual(['l_x', 'c_5', '', 'l_99999999999999999', 'l_987654321', `l_${deleted}`, `l_${companyOnly}`, `l_${foreign}`]);
      // Nothing was changed by looking.
      expect(await tagRow(a, deleted)).toMatchObject({ deletedAt: expect.any(Date) });
      expect(await tagRow(a, companyOnly)).toMatchObject({ entityTypes: ['company'] });
    });

    it('lists references that are not TagRefs as invalid instead of throwing', async () => {
      const junk = [{ type: 'label', id: '1' }, null, { type: 'id', id: 7.5 }, { type: 'name', name: 42 }] as unknown as TagRef[];
      const result = await resolve(a, junk);
      expect(result.tagIds).toEqual([]);
      expect(result.invalid).toHaveLength(4);
    });
  });

  describe('resolveTagRefs by name', () => {
    it('creates a missing tag allowing the entity type', async () => {
      const result = await resolve(a, [{ type: 'name', name: '  Fresh Name  ' }], 'activity');
      expect(result.invalid).toEqual([]);
      expect(result.tagIds).toHaveLength(1);
      expect(await tagRow(a, result.tagIds[0]!)).toEqual({ name: 'Fresh Name', entityTypes: ['activity'], deletedAt: null });
    });

    it('reuses a match (trimmed, any case) without writing to it', async () => {
      const id = await insertTag(a, 'Reused', ['member']);
      const result = await resolve(a, [{ type: 'name', name: 'REUSED ' }]);
      expect(result).toEqual({ tagIds: [id], invalid: [] });
      expect(await tagsNamed(a, 'reused')).toHaveLength(1);
    });

    it('undeletes a deleted match and extends one that does not allow the entity type yet', async () => {
      const deleted = await insertTag(a, 'Was deleted', ['member'], true);
      const memberOnly = await insertTag(a, 'Member only', ['member']);
      const result = await resolve(
        a,
        [
          { type: 'name', name: 'was deleted' },
          { type: 'name', name: 'member ONLY' },
        ],
        'company',
      );
      expect(result).toEqual({ tagIds: [deleted, memberOnly], invalid: [] });
      expect(await tagRow(a, deleted)).toEqual({ name: 'Was deleted', entityTypes: ['member', 'company'], deletedAt: null });
      expect(await tagRow(a, memberOnly)).toEqual({ name: 'Member only', entityTypes: ['member', 'company'], deletedAt: null });
    });

    it('creates one tag for names that differ only in case and spaces', async () => {
      const result = await resolve(a, [
        { type: 'name', name: 'Twin' },
        { type: 'name', name: ' twin' },
        { type: 'name', name: 'TWIN ' },
      ]);
      expect(result.invalid).toEqual([]);
      expect(result.tagIds).toHaveLength(1);
      expect(await tagsNamed(a, 'twin')).toHaveLength(1);
    });

    it('lists empty, overlong and NUL-bearing names as invalid, and mixes with IDs in order', async () => {
      const byId = await insertTag(a, 'Mixed by id', ['member']);
      const long = 'n'.repeat(256);
      const result = await resolve(a, [
        { type: 'name', name: 'Mixed new' },
        { type: 'name', name: '   ' },
        { type: 'id', id: `l_${byId}` },
        { type: 'name', name: long },
        { type: 'name', name: 'nul\u0000name' },
        { type: 'name', name: 'mixed BY id' },
      ]);
      const [created] = await tagsNamed(a, 'mixed new');
      expect(result).toEqual({ tagIds: [created!.id, byId], invalid: ['   ', long, 'nul\u0000name'] });
    });

    it('keeps names per community', async () => {
      const ofB = await insertTag(b, 'Per community', ['member']);
      const result = await resolve(a, [{ type: 'name', name: 'Per community' }]);
      expect(result.tagIds).toHaveLength(1);
      expect(result.tagIds[0]).not.toBe(ofB);
      expect(await tagsNamed(b, 'per community')).toEqual([{ id: ofB, name: 'Per community' }]);
    });

    it("writes nothing when the caller's transaction rolls back", async () => {
      await expect(
        db.transaction().execute(async (trx) => {
          const result = await resolveTagRefs(trx, a, [{ type: 'name', name: 'Rolled back' }], 'member');
          expect(result.tagIds).toHaveLength(1);
          throw new Error('caller fails');
        }),
      ).rejects.toThrow('caller fails');
      expect(await tagsNamed(a, 'rolled back')).toEqual([]);
    });

    it('works on the plain database handle too', async () => {
      const result = await resolveTagRefs(db, a, [{ type: 'name', name: 'No transaction' }], 'member');
      expect(result.tagIds).toHaveLength(1);
    });
  });

  describe('assignTags and unassignTags', () => {
    it('assigns idempotently, to each entity type separately', async () => {
      const x = await insertTag(a, 'Assign x', ['member', 'activity', 'company']);
      const y = await insertTag(a, 'Assign y', ['member', 'activity', 'company']);
      await db.transaction().execute(async (trx) => {
        await assignTags(trx, a, 'contact', 501, [x, y, x]);
        await assignTags(trx, a, 'contact', 501, [y]);
        await assignTags(trx, a, 'organization', 501, [x]);
        await assignTags(trx, a, 'activity', 501, [y]);
      });
      await assignTags(db, a, 'contact', 501, [x, y]);
      expect(await assigned(a, 'contact', 501)).toEqual([x, y]);
      expect(await assigned(a, 'organization', 501)).toEqual([x]);
      expect(await assigned(a, 'activity', 501)).toEqual([y]);
    });

    it('skips deleted, unknown and foreign tags instead of failing', async () => {
      const live = await insertTag(a, 'Assign live', ['member']);
      const deleted = await insertTag(a, 'Assign deleted', ['member'], true);
      const foreign = await insertTag(b, 'Assign foreign', ['member']);
      await assignTags(db, a, 'contact', 502, [deleted, 987654321, foreign, live]);
      expect(await assigned(a, 'contact', 502)).toEqual([live]);
      expect(await assigned(b, 'contact', 502)).toEqual([]);
    });

    it('does nothing for an empty list', async () => {
      await assignTags(db, a, 'contact', 503, []);
      await unassignTags(db, a, 'contact', 503, []);
      expect(await assigned(a, 'contact', 503)).toEqual([]);
    });

    it('unassigns only the named tags of the named record', async () => {
      const x = await insertTag(a, 'Unassign x', ['member', 'company']);
      const y = await insertTag(a, 'Unassign y', ['member', 'company']);
      await assignTags(db, a, 'contact', 504, [x, y]);
      await assignTags(db, a, 'organization', 504, [x, y]);
      await assignTags(db, a, 'contact', 505, [x]);
      await db.transaction().execute((trx) => unassignTags(trx, a, 'contact', 504, [x, 987654321]));
      expect(await assigned(a, 'contact', 504)).toEqual([y]);
      expect(await assigned(a, 'organization', 504)).toEqual([x, y]);
      expect(await assigned(a, 'contact', 505)).toEqual([x]);
      // Unassigning again is harmless.
      await unassignTags(db, a, 'contact', 504, [x]);
      expect(await assigned(a, 'contact', 504)).toEqual([y]);
    });

    it('unassigning in one community leaves the other alone', async () => {
      const ofB = await insertTag(b, 'B assigned', ['member']);
      await assignTags(db, b, 'contact', 506, [ofB]);
      await unassignTags(db, a, 'contact', 506, [ofB]);
      expect(await assigned(b, 'contact', 506)).toEqual([ofB]);
    });
  });

  // Two sessions at once: only PostgreSQL has more than one.
  describe.runIf(engine === 'postgres')('concurrency', () => {
    it('two transactions naming the same new tag make one tag', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let firstDone!: () => void;
      const firstResolved = new Promise<void>((resolve) => (firstDone = resolve));
      const first = db.transaction().execute(async (trx) => {
        const result = await resolveTagRefs(trx, a, [{ type: 'name', name: 'Raced' }], 'member');
        firstDone();
        await gate;
        return result;
      });
      await firstResolved;
      // The second waits on the first's uncommitted row, then reuses it.
      const second = db.transaction().execute((trx) => resolveTagRefs(trx, a, [{ type: 'name', name: 'RACED' }], 'activity'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      const [one, two] = await Promise.all([first, second]);
      expect(two.tagIds).toEqual(one.tagIds);
      const rows = await tagsNamed(a, 'raced');
      expect(rows).toHaveLength(1);
      expect(await tagRow(a, rows[0]!.id)).toMatchObject({ entityTypes: ['member', 'activity'] });
    });

    it('a tag deleted while an assignment is in flight ends with no assignment (assignment first)', async () => {
      const tag = await insertTag(a, 'Deleted during assign', ['member']);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let assignedNow!: () => void;
      const inFlight = new Promise<void>((resolve) => (assignedNow = resolve));
      const assigning = db.transaction().execute(async (trx) => {
        await assignTags(trx, a, 'contact', 601, [tag]);
        assignedNow();
        await gate;
      });
      await inFlight;
      const deleting = t.services.tags.remove(cliWriter(a), tag);
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      await assigning;
      const deleted = await deleting;
      expect(deleted.deletedAt).toEqual(expect.any(Date));
      expect(await assigned(a, 'contact', 601)).toEqual([]);
    });

    it('a tag deleted while an assignment is in flight ends with no assignment (deletion first)', async () => {
      const tag = await insertTag(a, 'Deleted before assign', ['member']);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let lockedNow!: () => void;
      const locked = new Promise<void>((resolve) => (lockedNow = resolve));
      // What the delete does, held open before its commit.
      const deleting = db.transaction().execute(async (trx) => {
        await sql`select id from tags where community_id = ${a} and id = ${tag} for update`.execute(trx);
        await sql`delete from tag_assignments where community_id = ${a} and tag_id = ${tag}`.execute(trx);
        await sql`update tags set deleted_at = now() where community_id = ${a} and id = ${tag}`.execute(trx);
        lockedNow();
        await gate;
      });
      await locked;
      const assigning = assignTags(db, a, 'contact', 602, [tag]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      await deleting;
      await assigning;
      expect(await assigned(a, 'contact', 602)).toEqual([]);
    });
  });
});

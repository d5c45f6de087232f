import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { contactState, type ContactState } from '../helpers/contact-state.ts';
import { accepted, pushUser } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

type Side = 'a' | 'b';

/** What happens to one side before the merge. */
type Before =
  | { side: Side; kind: 'activity' }
  | { side: Side; kind: 'user'; bio: string }
  | { side: Side; kind: 'tag'; tag: number }
  | { side: Side; kind: 'field'; field: number; value: string }
  | { side: Side; kind: 'segment'; segment: number };

/** What arrives between the merge and its undoing: activities of either side's sender, edits of the survivor. */
type Between = { side: Side; kind: 'activity' } | { kind: 'user-a'; bio: string } | { kind: 'new-tag' };

const side = fc.constantFrom<Side>('a', 'b');
const word = fc.stringMatching(/^[a-z]{3,8}$/);
const before: fc.Arbitrary<Before> = fc.oneof(
  fc.record({ side, kind: fc.constant('activity' as const) }),
  fc.record({ side, kind: fc.constant('user' as const), bio: word }),
  fc.record({ side, kind: fc.constant('tag' as const), tag: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ side, kind: fc.constant('field' as const), field: fc.integer({ min: 0, max: 1 }), value: word }),
  fc.record({ side, kind: fc.constant('segment' as const), segment: fc.integer({ min: 0, max: 1 }) }),
);
const between: fc.Arbitrary<Between> = fc.oneof(
  fc.record({ side, kind: fc.constant('activity' as const) }),
  fc.record({ kind: fc.constant('user-a' as const), bio: word }),
  fc.record({ kind: fc.constant('new-tag' as const) }),
);

/**
 * A merge then its undoing gives back both contacts as they were, over random histories: pushes of each side
 * (fields, activities), tags, custom-field values and segment memberships put on each, a merge by hand or by a
 * push naming both, then activities of either side and edits of the survivor arriving before the undo.
 * Every table that holds a contact's rows is compared by natural keys (contactState); what arrived in between
 * must sit where its sender's ID (or the survivor's ID, for edits made on it) says.
 */
describe.each(ENGINES)('merge then unmerge, as a property (%s)', (engine) => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2026-10-01T10:00:00Z'));
  const tags: string[] = [];
  const fields: string[] = [];
  const segments: string[] = [];
  let run = 0;

  beforeAll(async () => {
    t = await createTestApp(engine, { clock });
    for (const name of ['One', 'Two', 'Three']) {
      const response = await t.send('POST', '/community/v1/tags', { name, entityTypes: ['member'] });
      tags.push((response.json() as { id: string }).id);
    }
    for (const name of ['Plan', 'Team']) {
      const row = await t.services.db
        .insertInto('custom_fields')
        .values({ community_id: t.communityId, name, entity_types: ['contact'], value_type: 'string' })
        .returning('id')
        .executeTakeFirstOrThrow();
      fields.push(`cf_${row.id}`);
    }
    for (const name of ['First', 'Second']) {
      const row = await t.services.db
        .insertInto('segments')
        .values({ community_id: t.communityId, name, entity_type: 'contact' })
        .returning('id')
        .executeTakeFirstOrThrow();
      segments.push(`s_${row.id}`);
    }
  });
  afterAll(() => t?.close());

  const key = (id: string) => Number(id.slice(2));
  const bulk = async (body: Record<string, unknown>) => {
    const response = await t.send('POST', '/api/v2/contacts/bulk-update', body);
    expect(response.statusCode, response.body).toBe(200);
  };
  /** A contact's state without what depends on when its activities were counted, and without profiles' fields. */
  const comparable = (state: ContactState) => ({
    ...state,
    contact: { ...state.contact, activity_count_all: null, first_activity_at: null, latest_activity_at: null },
    profiles: state.profiles.map((profile) => ({ ...profile, fields: null })),
  });

  it('gives both contacts back as they were, and what arrived in between to its side', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(before, { maxLength: 8 }),
        fc.constantFrom('hand', 'push'),
        fc.array(between, { maxLength: 5 }),
        async (history, mergedBy, meanwhile) => {
          run += 1;
          const sender = { a: `p${run}-a`, b: `p${run}-b` };
          let activities = 0;
          const activity = async (who: Side) => {
            activities += 1;
            const response = await accepted(t, 'activity', {
              id: `p${run}-act${activities}`,
              activityType: 'made_post_topic',
              user: { id: sender[who] },
              timestamp: clock.now().toISOString(),
            });
            return response.activityId!;
          };
          const ids = {
            a: await pushUser(t, { id: sender.a, email: `p${run}.a@example.org`, fullName: `Ada ${run}`, github: { type: 'handle', value: `p${run}-ada` } }),
            b: '',
          };
          clock.advance(1000);
          ids.b = await pushUser(t, { id: sender.b, email: `p${run}.b@example.net`, username: `bee${run}` });
          for (const step of history) {
            const id = ids[step.side];
            if (step.kind === 'activity') await activity(step.side);
            if (step.kind === 'user') await pushUser(t, { id: sender[step.side], bio: step.bio });
            if (step.kind === 'tag') await bulk({ contactIds: [id], tagIdsToAdd: [tags[step.tag]] });
            if (step.kind === 'field') {
              await bulk({ contactIds: [id], customFields: [{ customFieldId: fields[step.field], customFieldValue: { type: 'string', value: step.value } }] });
            }
            if (step.kind === 'segment') await bulk({ contactIds: [id], segmentId: segments[step.segment] });
          }
          const was = { a: await contactState(t.services.db, t.communityId, key(ids.a)), b: await contactState(t.services.db, t.communityId, key(ids.b)) };

          clock.advance(1000);
          if (mergedBy === 'hand') expect((await t.send('POST', `/api/v2/contacts/${ids.b}/merge`, { contactId: ids.a })).statusCode).toBe(200);
          else expect((await accepted(t, 'user', { id: sender.b, email: `p${run}.a@example.org` })).contactId).toBe(ids.a);

          const expected = { a: structuredClone(was.a), b: structuredClone(was.b) };
          for (const step of meanwhile) {
            clock.advance(1000);
            if (step.kind === 'activity') {
              await activity(step.side);
              expected[step.side].activities.push({ activity_type: 'made_post_topic', external_id: `p${run}-act${activities}` });
            }
            if (step.kind === 'user-a') {
              await pushUser(t, { id: sender.a, bio: `${step.bio} later` });
              expected.a.contact!.bio = `${step.bio} later`;
            }
            if (step.kind === 'new-tag') {
              const response = await t.send('POST', '/community/v1/tags', {
                name: `Later ${run}-${activities}-${expected.a.tags.length}`,
                entityTypes: ['member'],
              });
              const tag = (response.json() as { id: string }).id;
              await bulk({ contactIds: [ids.b], tagIdsToAdd: [tag] }); // b's ID stands for the survivor now
              expected.a.tags.push({ tag_id: key(tag) });
            }
          }

          clock.advance(1000);
          const undone = await t.send('POST', `/api/v2/contacts/${ids.a}/unmerge`, { mergedId: ids.b });
          expect(undone.statusCode, undone.body).toBe(200);
          for (const who of ['a', 'b'] as const) {
            const now = await contactState(t.services.db, t.communityId, key(ids[who]));
            const sorted = (state: ContactState) => ({
              ...state,
              activities: state.activities
                .map(({ activity_type, external_id }) => ({ activity_type, external_id }))
                .sort((x, y) => String(x.external_id).localeCompare(String(y.external_id))),
              tags: [...state.tags].sort((x, y) => Number(x.tag_id) - Number(y.tag_id)),
            });
            expect(sorted(comparable(now)), `side ${who} of run ${run}`).toEqual(sorted(comparable(expected[who])));
            expect(now.contact!.activity_count_all).toBe(now.activities.length);
          }
        },
      ),
      { numRuns: 25, seed: 20261129 },
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/factories.ts';
import { ENGINES } from '../helpers/test-database.ts';

type Failure = { success: false; error: { code: string; message: string } };

/**
 * DELETE /api/v2/segments/{id}/contacts/{contactId} (docs/writing.md, Segments): 204 on removal and when
 * the contact was not a member; 404s for what the community does not have; the audit entry and the
 * webhook event of a removal; scopes and isolation between communities.
 */
describe.each(ENGINES)('removing a contact from a segment (%s)', (engine) => {
  let t: TestContext;
  let other: { communityId: number; token: string; segment: string; contact: string };

  const remove = (segment: string, contact: string, token: string | null = t.token) =>
    t.send('DELETE', `/api/v2/segments/${segment}/contacts/${contact}`, undefined, token);
  const add = async (segment: string, contactIds: string[]) => {
    const response = await t.send('POST', '/api/v2/contacts/bulk-update', { contactIds, segmentId: segment });
    expect(response.statusCode, response.body).toBe(200);
  };
  const members = async (segment: string, token = t.token): Promise<string[]> => {
    const response = await t.get(`/api/v2/contacts?segmentId=${segment}&limit=1000`, token);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data as { id: string }[]).map((contact) => contact.id).sort();
  };
  const segmentsOf = async (contact: string): Promise<string[]> =>
    ((await t.get(`/api/v2/contacts/${contact}?cols=segments`)).json().data.segments as { id: string }[]).map((segment) => segment.id);
  const audit = async (): Promise<{ operation: string; entityIds: string[] }[]> =>
    (await t.get('/api/v2/admin/audit-log?operation=segment.remove_contact&limit=1000')).json().data;

  function expectFailure(response: { statusCode: number; json(): unknown; body: string }, status: number, code: string) {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json() as Failure;
    expect(body).toMatchObject({ success: false, error: { code } });
    return body.error;
  }

  beforeAll(async () => {
    t = await createTestContext(engine);
    const theirs = await t.newCommunity('Other');
    const segment = await t.newSegment({ communityId: theirs.communityId, name: 'Their segment' });
    const contact = await t.newContact({ communityId: theirs.communityId });
    const added = await t.send('POST', '/api/v2/contacts/bulk-update', { contactIds: [contact.id], segmentId: segment.id }, theirs.token);
    expect(added.statusCode, added.body).toBe(200);
    other = { communityId: theirs.communityId, token: theirs.token, segment: segment.id, contact: contact.id };
  });
  afterAll(() => t?.close());

  it('takes the contact out of the segment with a 204 and no body; the other members and segments stay', async () => {
    const segment = (await t.newSegment({ name: 'Champions' })).id;
    const second = (await t.newSegment({ name: 'Speakers' })).id;
    const [ada, alan] = [(await t.newContact()).id, (await t.newContact()).id];
    await add(segment, [ada, alan]);
    await add(second, [ada]);
    const response = await remove(segment, ada);
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
    expect(await members(segment)).toEqual([alan]);
    expect(await segmentsOf(ada)).toEqual([second]);
    expect(await members(second)).toEqual([ada]);
    const entries = await audit();
    expect(entries[0]).toMatchObject({ operation: 'segment.remove_contact', entityIds: [segment, ada] });
  });

  it('is idempotent: a contact not in the segment answers 204, and nothing is written or audited', async () => {
    const segment = (await t.newSegment()).id;
    const contact = (await t.newContact()).id;
    await add(segment, [contact]);
    const before = (await audit()).length;
    expect((await remove(segment, contact)).statusCode).toBe(204);
    expect((await audit()).length).toBe(before + 1);
    for (let time = 0; time < 2; time += 1) expect((await remove(segment, contact)).statusCode).toBe(204);
    expect((await audit()).length).toBe(before + 1);
    expect(await members(segment)).toEqual([]);
  });

  it("a merged contact's ID takes its survivor out", async () => {
    const segment = (await t.newSegment()).id;
    const [survivor, merged] = [(await t.newContact()).id, (await t.newContact()).id];
    const merge = await t.send('POST', `/api/v2/contacts/${survivor}/merge`, { contactId: merged });
    expect(merge.statusCode, merge.body).toBe(200);
    const kept = (merge.json() as { data: { survivorId: string; mergedId: string } }).data;
    await add(segment, [kept.survivorId]);
    expect((await remove(segment, kept.mergedId)).statusCode).toBe(204);
    expect(await members(segment)).toEqual([]);
    expect((await audit())[0]!.entityIds).toEqual([segment, kept.survivorId]);
  });

  it('writes a segment.membership.changed event ("removed") for a webhook that wants it', async () => {
    const hook = await t.send('POST', '/api/v2/admin/webhooks', { url: 'https://hooks.example.com/segments', events: ['segment.membership.changed'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const segment = await t.newSegment();
    const contact = await t.newContact();
    await add(segment.id, [contact.id]);
    expect((await remove(segment.id, contact.id)).statusCode).toBe(204);
    const events = await t.services.db
      .selectFrom('webhook_events')
      .select(['kind', 'entity_type', 'entity_id', 'detail'])
      .where('community_id', '=', t.communityId)
      .where('entity_id', '=', contact.key)
      .orderBy('id')
      .execute();
    expect(events.map((event) => [event.kind, event.entity_type, Number(event.entity_id), event.detail])).toEqual([
      ['segment.membership.changed', 'contact', contact.key, { segmentId: segment.key, change: 'added' }],
      ['segment.membership.changed', 'contact', contact.key, { segmentId: segment.key, change: 'removed' }],
    ]);
    // A repeated removal changed nothing, so it tells nobody.
    expect((await remove(segment.id, contact.id)).statusCode).toBe(204);
    const again = await t.services.db
      .selectFrom('webhook_events')
      .select('id')
      .where('community_id', '=', t.communityId)
      .where('entity_id', '=', contact.key)
      .execute();
    expect(again).toHaveLength(2);
  });

  it('an unknown segment or contact is a 404 with its code; malformed IDs are 400s', async () => {
    const segment = (await t.newSegment()).id;
    const contact = (await t.newContact()).id;
    await add(segment, [contact]);
    expect(expectFailure(await remove('s_99999999', contact), 404, 'segment_not_found').message).toContain('s_99999999');
    expect(expectFailure(await remove(segment, 'c_99999999'), 404, 'contact_not_found').message).toContain('c_99999999');
    expectFailure(await remove('nope', contact), 400, 'invalid_segment_id');
    expectFailure(await remove(segment, 'o_1'), 400, 'invalid_contact_id');
    expect(await members(segment)).toEqual([contact]);
  });

  it('an organization or object segment is a 404: the route takes contacts out of contact segments', async () => {
    const contact = (await t.newContact()).id;
    const organizations = (await t.newSegment({ entityType: 'organization' })).id;
    const type = await t.newObjectType();
    const objects = (await t.newSegment({ entityType: 'object', objectTypeId: type.id })).id;
    expect(expectFailure(await remove(organizations, contact), 404, 'segment_not_found').message).toContain('is an organization segment');
    expect(expectFailure(await remove(objects, contact), 404, 'segment_not_found').message).toContain('is an object segment');
  });

  it('needs segments:write (or write): another scope is 403, and nothing changes', async () => {
    const segment = (await t.newSegment()).id;
    const contact = (await t.newContact()).id;
    await add(segment, [contact]);
    for (const scopes of [['segments:read'], ['read'], ['contacts:write', 'objects:write']]) {
      expect((await remove(segment, contact, await t.issueToken(scopes))).statusCode, scopes.join()).toBe(403);
    }
    expect((await remove(segment, contact, null)).statusCode).toBe(403);
    expect(await members(segment)).toEqual([contact]);
    expect((await remove(segment, contact, await t.issueToken(['segments:write']))).statusCode).toBe(204);
    await add(segment, [contact]);
    expect((await remove(segment, contact, await t.issueToken(['write']))).statusCode).toBe(204);
    expect(await members(segment)).toEqual([]);
  });

  it("isolation: another community's segment and contact are 404s both ways, and their membership stays", async () => {
    const segment = (await t.newSegment()).id;
    const contact = (await t.newContact()).id;
    await add(segment, [contact]);
    // Our token, their segment and contact; our segment, their contact.
    expectFailure(await remove(other.segment, other.contact), 404, 'segment_not_found');
    expectFailure(await remove(segment, other.contact), 404, 'contact_not_found');
    // Their token, our segment and contact.
    expectFailure(await remove(segment, contact, other.token), 404, 'segment_not_found');
    // Their token, their segment, our contact.
    expectFailure(await remove(other.segment, contact, other.token), 404, 'contact_not_found');
    expect(await members(segment)).toEqual([contact]);
    expect(await members(other.segment, other.token)).toEqual([other.contact]);
    // And their own removal works in their community only.
    expect((await remove(other.segment, other.contact, other.token)).statusCode).toBe(204);
    expect(await members(other.segment, other.token)).toEqual([]);
    expect(await members(segment)).toEqual([contact]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/jobs/worker.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

describe.each(ENGINES)('contact lookups and erasure through the ingestion API (%s)', (engine) => {
  let t: TestApp;
  let ada: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    const pushed = await pushUser({
      id: 'ada-1',
      fullName: 'Ada Lovelace',
      email: 'Ada@Analytical.example.org',
      github: { type: 'handle', value: 'ada-l' },
      twitter: { type: 'handle', value: '@ada_l' },
      titleAtCompany: 'Analyst',
      bio: 'Poet of numbers',
    });
    ada = pushed.json().contactId;
    await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/activity`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { id: 'note-g', activityType: 'made_post_topic', user: { id: 'ada-1' }, content: { type: 'text', value: 'Note G: the first program' } },
    });
  });
  afterAll(() => t.close());

  function pushUser(payload: Record<string, unknown>) {
    return t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/user`,
      headers: { authorization: `Bearer ${t.token}` },
      payload,
    });
  }

  it('finds a contact by email, GitHub, X or LinkedIn, as normalized', async () => {
    for (const query of ['email=ada%40analytical.example.org', 'github=https%3A%2F%2Fgithub.com%2FAda-L', 'twitter=ada_l']) {
      const response = await t.get(`/community/v1/members?${query}`);
      expect(response.statusCode, query).toBe(200);
      const [found] = response.json() as Record<string, unknown>[];
      expect(found).toMatchObject({
        fullName: 'Ada Lovelace',
        title: 'Analyst',
        bio: 'Poet of numbers',
        github: 'ada-l',
        twitter: 'ada_l',
        activities_count: 1,
        url: `http://hearth.test/contacts/${ada}`,
        segments: [],
        custom_fields: [],
        member_tags: [],
      });
    }
  });

  it('answers "" for a string field without a value, never null (clients concatenate them)', async () => {
    await pushUser({ id: 'bare-1', email: 'bare.person@gmail.com' });
    const [found] = (await t.get('/community/v1/members?email=bare.person%40gmail.com')).json() as Record<string, unknown>[];
    for (const field of ['avatar', 'bio', 'organization', 'title', 'last_active', 'twitter', 'github', 'linkedin', 'discord', 'youtube']) {
      expect(found![field], field).toBe('');
    }
    expect(found!.fullName).toBe('bare.person');
    expect(found!.first_seen).toEqual(expect.any(String));
  });

  it('answers 404 when nothing matches and 400 without a parameter or with a bad one', async () => {
    expect((await t.get('/community/v1/members?email=nobody%40example.org')).statusCode).toBe(404);
    const none = await t.get('/community/v1/members');
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ reason: 'invalid-request-parameters' });
    expect((await t.get('/community/v1/members?email=n%2Fa')).statusCode).toBe(400);
  });

  it('lists contact ids by email, and none as an empty list', async () => {
    const found = await t.get('/community/v1/user/ada%40ANALYTICAL.example.org');
    expect(found.json()).toEqual({ ids: [Number(ada.slice(2))] });
    expect((await t.get('/community/v1/user/nobody%40example.org')).json()).toEqual({ ids: [] });
  });

  it('erases a person on request, and a later push of any of their identities stores nothing', async () => {
    const request = await t.app.inject({
      method: 'DELETE',
      url: '/community/v1/user/ada%40analytical.example.org',
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(request.statusCode).toBe(200);
    expect(request.json()).toEqual({ status: 'success' });
    const worker = createWorker({ db: t.services.db, clock: t.services.clock, queue: t.services.jobs, id: 'test' });
    expect(await worker.runUntilIdle()).toBeGreaterThanOrEqual(1);

    // The contact is a shell; the lookup no longer finds the person.
    expect((await t.get('/community/v1/user/ada%40analytical.example.org')).json()).toEqual({ ids: [] });
    const shell = await t.services.db
      .selectFrom('contacts')
      .selectAll()
      .where('id', '=', Number(ada.slice(2)))
      .executeTakeFirstOrThrow();
    expect(shell).toMatchObject({ name: 'Anonymized contact', full_name: null, bio: null, title: null, primary_email: null });

    for (const payload of [
      { id: 'new-id', email: 'ADA@analytical.example.org', fullName: 'Ada Again' },
      { id: 'other-id', github: { type: 'handle', value: 'ada-l' }, bio: 'back' },
      { id: 'ada-1', fullName: 'Ada By Old Id' },
    ]) {
      const response = await pushUser(payload);
      expect(response.statusCode).toBe(202);
      expect(response.json()).toMatchObject({ contactId: null, warnings: [expect.stringMatching(/removed/)] });
    }
    const activity = await t.app.inject({
      method: 'POST',
      url: `/community/v1/source/${t.sourceId}/activity`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: {
        id: 'note-h',
        activityType: 'tweet',
        user: { id: 'x', twitter: { type: 'handle', value: 'ada_l' } },
        content: { type: 'text', value: 'hello' },
      },
    });
    expect(activity.json()).toMatchObject({ contactId: null, activityId: null });

    // Nothing of hers anywhere: not the address, not a handle, not her name, bio or note.
    const dump = JSON.stringify(
      await Promise.all(
        ['contacts', 'contact_identities', 'source_profiles', 'activities', 'removal_requests', 'organizations'].map((table) =>
          t.services.db
            .selectFrom(table as 'contacts')
            .selectAll()
            .execute(),
        ),
      ),
    ).toLowerCase();
    for (const trace of ['analytical.example.org', 'ada-l', 'ada_l', 'lovelace', 'poet of numbers', 'note g', 'ada again', 'ada by old id']) {
      expect(dump, trace).not.toContain(trace);
    }
  });
});

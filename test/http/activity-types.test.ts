import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliWriter } from '../../src/core/writer.ts';

const REQUIRED = [
  'other',
  'made_post_topic',
  'commented_replied',
  'attended_gathering',
  'registered_for_webinar',
  'attended_webinar',
  'submitted_idea',
  'started_training',
  'tweet',
  'pr_comment',
];

describe.each(ENGINES)('activity types (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it('core: a bare array with the default catalog', async () => {
    const response = await t.get('/community/v1/activityTypes');
    expect(response.statusCode).toBe(200);
    const types = response.json() as { id: string; displayName: string }[];
    expect(Array.isArray(types)).toBe(true);
    expect(types.map((type) => type.id)).toEqual(expect.arrayContaining(REQUIRED));
    for (const type of types) expect(Object.keys(type).sort()).toEqual(['displayName', 'id']);
    // The usual GitHub, Slack, Discord and forum kinds.
    for (const prefix of ['pr_', 'issue_', 'slack_', 'discord_', 'forum_']) {
      expect(
        types.some((type) => type.id.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
  });

  it('core: readable with contacts:read or with a push token (sources:write), refused otherwise', async () => {
    for (const scopes of [['contacts:read'], ['sources:write'], ['read'], ['write']]) {
      expect((await t.get('/community/v1/activityTypes', await t.issueToken(scopes))).statusCode, scopes.join()).toBe(200);
    }
    for (const scopes of [['segments:read'], ['activities:read'], ['admin']]) {
      const response = await t.get('/community/v1/activityTypes', await t.issueToken(scopes));
      expect(response.statusCode, scopes.join()).toBe(403);
      expect(response.json()).toMatchObject({ status: 'forbidden', reason: expect.stringMatching(/contacts:read.*sources:write/) });
    }
  });

  it('v2: the same list in the success envelope, without meta', async () => {
    const core = (await t.get('/community/v1/activityTypes')).json();
    const response = await t.get('/api/v2/activity-types');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: core });
  });

  it("includes a community's own types, and refuses bad or duplicate ones", async () => {
    await t.services.activityTypes.add(cliWriter(t.communityId), { id: 'meetup_talk', displayName: 'Gave a meetup talk' });
    const ids = ((await t.get('/api/v2/activity-types')).json().data as { id: string }[]).map((type) => type.id);
    expect(ids).toContain('meetup_talk');
    await expect(t.services.activityTypes.add(cliWriter(t.communityId), { id: 'meetup_talk', displayName: 'Again' })).rejects.toMatchObject({
      kind: 'conflict',
    });
    await expect(t.services.activityTypes.add(cliWriter(t.communityId), { id: 'tweet', displayName: 'Mine' })).rejects.toMatchObject({
      kind: 'conflict',
    });
    await expect(t.services.activityTypes.add(cliWriter(t.communityId), { id: 'Bad Id', displayName: 'x' })).rejects.toMatchObject({
      kind: 'invalid',
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

describe.each(ENGINES)('token status (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  it.each(['/community/v1/api-token-status', '/api/v2/api-token-status'])('%s names the token and its community', async (url) => {
    const response = await t.get(url);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({ jti: expect.any(String), communityName: 'Default', communityId: `com_${t.communityId}` });
  });

  it('needs no particular scope', async () => {
    const response = await t.get('/community/v1/api-token-status', await t.issueToken(['segments:read']));
    expect(response.statusCode).toBe(200);
  });
});

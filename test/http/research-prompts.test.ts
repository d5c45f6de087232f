import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushUser } from '../helpers/ingest.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

interface Prompt {
  promptId: string;
  promptName: string;
  prompt: string;
  isPrimaryPrompt: boolean;
  answerCount: number;
  retiredAt: string | null;
}

const URL = '/api/v2/admin/research-prompts';

/** Research prompts administered over HTTP (admin scope), and answers imported. */
describe.each(ENGINES)('research prompts administration (%s)', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t?.close());

  const list = async (query = '') => ((await t.get(`${URL}${query}`)).json() as { data: Prompt[] }).data;
  async function expectError(response: { statusCode: number; body: string }, status: number, code: string, message: RegExp) {
    expect(response.statusCode, response.body).toBe(status);
    expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code, message: expect.stringMatching(message) } });
  }
  async function create(body: Record<string, unknown>): Promise<Prompt> {
    const response = await t.send('POST', URL, body);
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { data: Prompt }).data;
  }

  it('creates, lists, gets, changes and retires prompts; one at most is primary', async () => {
    const fit = await create({ promptId: 'fit', promptName: ' Good fit? ', prompt: 'Is this organization a good fit?', isPrimaryPrompt: true });
    expect(fit).toMatchObject({
      promptId: 'fit',
      promptName: 'Good fit?',
      prompt: 'Is this organization a good fit?',
      isPrimaryPrompt: true,
      answerCount: 0,
      retiredAt: null,
    });
    const stack = await create({ promptId: 'tech-stack_2', promptName: 'Stack', prompt: 'What do they run?' });
    expect(stack.isPrimaryPrompt).toBe(false);

    expect((await list()).map((prompt) => prompt.promptId)).toEqual(['fit', 'tech-stack_2']);
    expect((await t.get(`${URL}/fit`)).json()).toMatchObject({ success: true, data: { promptId: 'fit' } });

    // Making another primary takes it from the first.
    const changed = await t.send('PATCH', `${URL}/tech-stack_2`, { isPrimaryPrompt: true, promptName: 'Tech stack' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await list()).map((prompt) => [prompt.promptId, prompt.isPrimaryPrompt])).toEqual([
      ['fit', false],
      ['tech-stack_2', true],
    ]);
    // A new text moves updatedAt (the model answers again); a new name alone does not.
    const before = (await list())[0]!;
    const renamed = (await t.send('PATCH', `${URL}/fit`, { promptName: 'Fit' })).json() as { data: Prompt & { updatedAt: string } };
    expect(renamed.data.updatedAt).toBe((before as Prompt & { updatedAt: string }).updatedAt);
    const reworded = (await t.send('PATCH', `${URL}/fit`, { prompt: 'Would they buy?' })).json() as { data: Prompt & { updatedAt: string } };
    expect(reworded.data.prompt).toBe('Would they buy?');
    expect(Date.parse(reworded.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse((before as Prompt & { updatedAt: string }).updatedAt));

    const retired = await t.send('DELETE', `${URL}/fit`, undefined);
    expect(retired.statusCode, retired.body).toBe(200);
    expect((retired.json() as { data: Prompt }).data.retiredAt).not.toBeNull();
    expect((await list()).map((prompt) => prompt.promptId)).toEqual(['tech-stack_2']);
    expect((await list('?includeRetired=true')).map((prompt) => prompt.promptId)).toEqual(['tech-stack_2', 'fit']);
    await expectError(await t.get(`${URL}/fit`), 404, 'research_prompt_not_found', /no live research prompt "fit"/);
    await expectError(await t.send('DELETE', `${URL}/fit`, undefined), 404, 'research_prompt_not_found', /fit/);
    // Its promptId is free again.
    expect((await create({ promptId: 'fit', promptName: 'Fit again', prompt: 'Again?' })).promptId).toBe('fit');
  });

  it('says what is wrong with a prompt', async () => {
    await expectError(await t.send('POST', URL, { promptId: 'Bad Id', promptName: 'x', prompt: 'y' }), 400, 'invalid_parameters', /promptId/);
    await expectError(await t.send('POST', URL, { promptId: 'ok', promptName: '   ', prompt: 'y' }), 400, 'invalid_parameters', /promptName must not be blank/);
    await expectError(await t.send('POST', URL, { promptId: 'ok', promptName: 'x' }), 400, 'invalid_parameters', /prompt/);
    await expectError(await t.send('POST', URL, { promptId: 'ok', promptName: 'x', prompt: 'y', extra: 1 }), 400, 'invalid_parameters', /extra/);
    await expectError(await t.send('POST', URL, { promptId: 'ok', promptName: 'x', prompt: 'y'.repeat(4001) }), 400, 'invalid_parameters', /prompt/);
    await create({ promptId: 'dup', promptName: 'x', prompt: 'y' });
    await expectError(await t.send('POST', URL, { promptId: 'dup', promptName: 'x', prompt: 'y' }), 409, 'conflict', /already named "dup"/);
    await expectError(await t.send('PATCH', `${URL}/dup`, {}), 400, 'invalid_parameters', /./);
    await expectError(await t.send('PATCH', `${URL}/dup`, { prompt: '' }), 400, 'invalid_parameters', /prompt/);
    await expectError(await t.send('PATCH', `${URL}/nope`, { prompt: 'z' }), 404, 'research_prompt_not_found', /"nope"/);
    await expectError(await t.get(`${URL}/NOT-VALID`), 400, 'invalid_prompt_id', /not a valid promptId/);
    // Admin scope only.
    const reader = await t.issueToken(['read', 'write']);
    expect((await t.get(URL, reader)).statusCode).toBe(403);
    expect((await t.send('POST', URL, { promptId: 'x', promptName: 'x', prompt: 'y' }, reader)).statusCode).toBe(403);
  });

  it('imports answers by organization ID or domain, checked whole first, and shows them on the organization', async () => {
    await create({ promptId: 'size', promptName: 'Team size', prompt: 'How big is their team?', isPrimaryPrompt: true });
    await pushUser(t, { id: 'u-1', email: 'ann@initech-research.com' });
    const organizations = (await t.get('/api/v2/organizations?primaryDomain=initech-research.com')).json() as { data: { id: string }[] };
    const initech = organizations.data[0]!.id;
    const imports = (answers: unknown[]) => t.send('POST', '/api/v2/admin/research-answers', { answers });

    const refused = await imports([
      { organizationId: initech, promptId: 'size', answer: 'About 40.' },
      { domain: 'nowhere-research.com', promptId: 'size', answer: 'x' },
      { organizationId: 'o_999999', promptId: 'size', answer: 'x' },
      { organizationId: 'initech', promptId: 'size', answer: 'x' },
      { organizationId: initech, domain: 'initech-research.com', promptId: 'size', answer: 'x' },
      { promptId: 'size', answer: 'x' },
      { organizationId: initech, promptId: 'missing', answer: 'x' },
      { organizationId: initech, promptId: 'size', answer: '   ' },
    ]);
    await expectError(refused, 400, 'invalid_parameters', /^nothing was imported: /);
    for (const fault of [
      'answers[1]: no organization with the domain "nowhere-research.com"',
      'answers[2]: no organization o_999999',
      'answers[3]: "initech" is not an organization ID',
      'answers[4]: give organizationId or domain',
      'answers[5]: give organizationId or domain',
      'answers[6]: no live research prompt "missing"',
      'answers[7]: answer must not be blank',
    ]) {
      expect(refused.body).toContain(fault.replaceAll('"', '\\"'));
    }
    expect(refused.body).not.toContain('answers[0]');
    const research = async () =>
      ((await t.get(`/api/v2/organizations/${initech}?cols=researchResults`)).json() as { data: { researchResults: unknown[] } }).data.researchResults;
    expect(await research()).toEqual([]);
    await expectError(await imports([]), 400, 'invalid_parameters', /answers/);

    // By any of its domains (normalized), the last answer given for a pair winning.
    const stored = await imports([
      { domain: 'WWW.Initech-Research.com', promptId: 'size', answer: 'About 30.' },
      { organizationId: initech, promptId: 'size', answer: ' About 40. ' },
    ]);
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json()).toEqual({ success: true, data: { imported: 1 } });
    expect(await research()).toEqual([{ promptId: 'size', answer: 'About 40.', isPrimaryPrompt: true, promptName: 'Team size' }]);
    expect((await list()).find((prompt) => prompt.promptId === 'size')!.answerCount).toBe(1);
    // A new import replaces it.
    expect((await imports([{ domain: 'initech-research.com', promptId: 'size', answer: 'About 50.' }])).statusCode).toBe(200);
    expect(await research()).toEqual([{ promptId: 'size', answer: 'About 50.', isPrimaryPrompt: true, promptName: 'Team size' }]);
  });
});

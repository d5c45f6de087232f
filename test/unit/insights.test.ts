import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { checkContactAnswer } from '../../src/modules/insights/contact-insights.ts';
import { jsonObjectIn, LlmError } from '../../src/modules/insights/llm-client.ts';
import { checkResearchAnswer } from '../../src/modules/insights/research-insights.ts';

const drafts = {
  sparkSummary: 'In the last 30 days, 2 activities.',
  recentSparkSummaries: ['30 days to 2026-11-27: 2 activities.', '30 days to 2026-10-28: 1 activity.'],
  activateMessage: { title: 'Follow up on Helm', message: 'Hi Ada, …' },
};
const good = { sparkSummary: ' Two posts. ', recentSparkSummaries: ['a', 'b'], activateMessage: { title: 'T', message: 'M' } };

describe("a model's answers, checked before they are stored", () => {
  it('takes the JSON object out of a fence or a sentence, and nothing else', () => {
    expect(jsonObjectIn('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(jsonObjectIn('Sure! {"a": {"b": 2}} Hope that helps.')).toEqual({ a: { b: 2 } });
    expect(jsonObjectIn('[1, 2]')).toBeNull();
    expect(jsonObjectIn('{"a": ')).toBeNull();
    expect(jsonObjectIn('no json')).toBeNull();
  });

  it("keeps a contact's texts only when each text the drafts have is there, in shape", () => {
    expect(checkContactAnswer(JSON.stringify(good), drafts)).toEqual({ ...good, sparkSummary: 'Two posts.' });
    const refused = (answer: unknown) => () => checkContactAnswer(typeof answer === 'string' ? answer : JSON.stringify(answer), drafts);
    expect(refused('I would rather not')).toThrow(LlmError);
    expect(refused({ ...good, sparkSummary: null })).toThrow(/sparkSummary is not a string/);
    expect(refused({ ...good, sparkSummary: '  ' })).toThrow(/sparkSummary is empty/);
    expect(refused({ ...good, sparkSummary: 'x'.repeat(1001) })).toThrow(/longer than 1000/);
    expect(refused({ ...good, recentSparkSummaries: ['a'] })).toThrow(/must hold 2 texts/);
    expect(refused({ ...good, recentSparkSummaries: ['a', 3] })).toThrow(/recentSparkSummaries\[1\]/);
    expect(refused({ ...good, activateMessage: null })).toThrow(/activateMessage is not an object/);
    expect(refused({ ...good, activateMessage: { title: 'T' } })).toThrow(/activateMessage.message/);
    expect(refused({ ...good, sparkSummary: 'bell \u0007' })).toThrow(/control characters/);
  });

  it('writes nothing the drafts do not have, whatever the model says', () => {
    const quiet = { sparkSummary: null, recentSparkSummaries: ['30 days to 2026-10-28: 1 activity.'], activateMessage: null };
    expect(
      checkContactAnswer(JSON.stringify({ sparkSummary: 'Invented', recentSparkSummaries: ['Once.'], activateMessage: { title: 'x', message: 'y' } }), quiet),
    ).toEqual({
      sparkSummary: null,
      recentSparkSummaries: ['Once.'],
      activateMessage: null,
    });
  });

  it('keeps a research answer only as {"answer": text}', () => {
    expect(checkResearchAnswer('{"answer": " Yes, 40 engineers. "}')).toBe('Yes, 40 engineers.');
    expect(() => checkResearchAnswer('Yes')).toThrow(LlmError);
    expect(() => checkResearchAnswer('{"answer": ""}')).toThrow(/empty/);
    expect(() => checkResearchAnswer(JSON.stringify({ answer: 'x'.repeat(4001) }))).toThrow(/longer than 4000/);
  });
});

describe('the model endpoint settings', () => {
  it('are none without HEARTH_LLM_URL, and need a model with it', () => {
    expect(loadConfig({}).llm).toBeNull();
    expect(loadConfig({ HEARTH_LLM_URL: 'http://127.0.0.1:11434/v1/', HEARTH_LLM_MODEL: 'llama3' }).llm).toEqual({
      url: 'http://127.0.0.1:11434/v1',
      key: null,
      model: 'llama3',
      timeoutMs: 60_000,
      concurrency: 4,
      intervalMs: 600_000,
    });
    expect(
      loadConfig({
        HEARTH_LLM_URL: 'https://api.example/v1',
        HEARTH_LLM_MODEL: 'm',
        HEARTH_LLM_KEY: 'k',
        HEARTH_LLM_TIMEOUT: '5',
        HEARTH_LLM_CONCURRENCY: '1',
        HEARTH_LLM_INTERVAL: '0',
      }).llm,
    ).toMatchObject({ key: 'k', timeoutMs: 5000, concurrency: 1, intervalMs: 0 });
    expect(() => loadConfig({ HEARTH_LLM_URL: 'http://x/v1' })).toThrow(/HEARTH_LLM_MODEL/);
    expect(() => loadConfig({ HEARTH_LLM_MODEL: 'm' })).toThrow(ConfigError);
    expect(() => loadConfig({ HEARTH_LLM_URL: 'ftp://x', HEARTH_LLM_MODEL: 'm' })).toThrow(/http/);
    expect(() => loadConfig({ HEARTH_LLM_URL: 'not a url', HEARTH_LLM_MODEL: 'm' })).toThrow(/absolute/);
    expect(() => loadConfig({ HEARTH_LLM_URL: 'http://x/v1', HEARTH_LLM_MODEL: 'm', HEARTH_LLM_CONCURRENCY: '0' })).toThrow(/HEARTH_LLM_CONCURRENCY/);
  });
});

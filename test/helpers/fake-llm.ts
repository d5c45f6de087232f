import type { LlmConfig } from '../../src/config/config.ts';
import { stubServer } from './webhook-receiver.ts';

/** How the fake answers: as a model would, with a 500, never, or with what is not the JSON asked for. */
export type FakeMode = 'ok' | 'fail' | 'hang' | 'garbage';

export interface FakeRequest {
  path: string;
  authorization: string | null;
  body: { model: string; messages: { role: string; content: string }[] };
  /** The user message's JSON: what Hearth sent about the contact or organization. */
  sent: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface FakeLlm {
  url: string;
  mode: FakeMode;
  requests: FakeRequest[];
  /** The settings that point Hearth at it (a short timeout, for `hang`). */
  config(overrides?: Partial<LlmConfig>): LlmConfig;
  close(): Promise<void>;
}

/**
 * A local stand-in for an OpenAI-compatible endpoint: `POST /v1/chat/completions` answered from what was
 * asked, so a test can tell the model's text from the deterministic one: every text of a contact's drafts
 * comes back prefixed with "Model: ", and a research question is answered with the organization's name and
 * its people's titles. Nothing leaves the machine.
 */
export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: FakeRequest[] = [];
  const state = { mode: 'ok' as FakeMode };
  const server = stubServer((request, response) => {
    const body = JSON.parse(request.body) as FakeRequest['body'];
    const sent = JSON.parse(body.messages.find((message) => message.role === 'user')?.content ?? '{}');
    requests.push({ path: request.path, authorization: request.headers.authorization ?? null, body, sent });
    if (request.path !== '/v1/chat/completions') return void response.writeHead(404).end('no such route');
    if (state.mode === 'hang') return;
    if (state.mode === 'fail') return void response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
    const content = state.mode === 'garbage' ? 'I would rather not say.' : answer(sent);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'fake',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  });
  const url = `${await server.start()}/v1`;
  return {
    url,
    get mode() {
      return state.mode;
    },
    set mode(mode: FakeMode) {
      state.mode = mode;
    },
    requests,
    config: (overrides = {}) => ({ url, key: 'test-key', model: 'fake-model', timeoutMs: 2_000, concurrency: 2, intervalMs: 0, ...overrides }),
    close: server.stop,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function answer(sent: Record<string, any>): string {
  if (sent.question !== undefined) {
    const titles = (sent.organization.contactTitles as { title: string }[]).map((entry) => entry.title).join(', ') || 'none';
    return JSON.stringify({ answer: `Model: ${sent.organization.name} (${sent.question}) titles: ${titles}` });
  }
  const drafts = sent.drafts as { sparkSummary: string | null; recentSparkSummaries: string[]; activateMessage: { title: string; message: string } | null };
  // A code fence around the JSON, as models often write it.
  return (
    '```json\n' +
    JSON.stringify({
      sparkSummary: drafts.sparkSummary === null ? null : `Model: ${drafts.sparkSummary}`,
      recentSparkSummaries: drafts.recentSparkSummaries.map((text) => `Model: ${text}`),
      activateMessage:
        drafts.activateMessage === null ? null : { title: `Model: ${drafts.activateMessage.title}`, message: `Model: ${drafts.activateMessage.message}` },
    }) +
    '\n```'
  );
}

import type { LlmConfig } from '../../config/config.ts';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** Why a completion gave nothing usable: the endpoint failed, timed out, or answered what is not an answer. */
export class LlmError extends Error {
  /** The endpoint itself failed (network, timeout, an HTTP error): worth stopping after several in a row. */
  readonly endpoint: boolean;
  constructor(message: string, endpoint: boolean) {
    super(message);
    this.endpoint = endpoint;
  }
}

/** The most of an endpoint's answer read: a completion is a few hundred words, and a runaway body stops here. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The one way Hearth calls a language model: `POST <url>/chat/completions` of an OpenAI-compatible API
 * (OpenAI, Azure's compatible endpoint, vLLM, Ollama, llama.cpp's server...). At most `concurrency`
 * completions are in flight per process, whoever asks; each is cut at `timeoutMs`. The URL is the
 * operator's own setting, not a user's, so private addresses are allowed (a model on the same host is the
 * usual case) and no outbound guard applies.
 */
export function createLlmClient(config: LlmConfig) {
  const endpoint = /\/chat\/completions$/.test(config.url) ? config.url : `${config.url}/chat/completions`;
  let running = 0;
  const waiting: (() => void)[] = [];

  async function slot(): Promise<() => void> {
    if (running >= config.concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    return () => {
      running -= 1;
      waiting.shift()?.();
    };
  }

  /**
   * The text of the first choice; throws LlmError for anything else. `wanted` is asked once a slot is free
   * (a caller that stopped meanwhile gives it back unused): false gives null.
   */
  async function complete(messages: ChatMessage[], options: { signal?: AbortSignal; wanted?: () => boolean } = {}): Promise<string | null> {
    const { signal } = options;
    const release = await slot();
    try {
      if (options.wanted && !options.wanted()) return null;
      const timeout = AbortSignal.timeout(config.timeoutMs);
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(config.key ? { authorization: `Bearer ${config.key}` } : {}) },
          body: JSON.stringify({ model: config.model, messages, temperature: 0.2 }),
          signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        });
      } catch (error) {
        if (timeout.aborted) throw new LlmError(`no answer within ${config.timeoutMs / 1000} s`, true);
        if (signal?.aborted) throw error;
        throw new LlmError(
          `could not reach the endpoint: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
          true,
        );
      }
      let body: string;
      try {
        body = await readCapped(response);
      } catch (error) {
        if (timeout.aborted) throw new LlmError(`no answer within ${config.timeoutMs / 1000} s`, true);
        throw new LlmError(`the answer could not be read: ${(error as Error).message}`, true);
      }
      if (!response.ok) throw new LlmError(`the endpoint answered ${response.status}: ${body.slice(0, 200)}`, true);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        throw new LlmError('the endpoint answered with what is not JSON', true);
      }
      const content = (parsed as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
      if (typeof content !== 'string' || content.trim() === '') throw new LlmError('the answer holds no message content', false);
      return content;
    } finally {
      release();
    }
  }

  return { model: config.model, complete };
}

export type LlmClient = ReturnType<typeof createLlmClient>;

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw new Error(`the answer is longer than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The JSON object a model was asked for, from its message: models wrap it in a code fence or a sentence
 * often enough that the outermost braces are taken. Null when there is none.
 */
export function jsonObjectIn(text: string): Record<string, unknown> | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

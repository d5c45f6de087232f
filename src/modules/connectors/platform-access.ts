import { outboundRequest } from '../../core/outbound.ts';
import type { PlatformAccess } from './connector-kind.ts';

/** A platform answer may be large (a page of 100 issues with their bodies); beyond this it is refused. */
const MAX_ANSWER_BYTES = 50 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

/**
 * `fetch` for a kind's clients (Octokit, plain calls), made through Hearth's outbound guard: private
 * addresses are refused unless the operator allows them, every request times out, and the job's signal stops
 * it. It takes what fetch takes (a URL or Request, method, headers, a string, bytes or form body) and
 * answers a standard Response.
 */
export function platformFetch(options: { allowPrivateAddresses: boolean; signal: AbortSignal; timeoutMs?: number }): typeof fetch {
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const signal = init?.signal ? AbortSignal.any([options.signal, init.signal]) : options.signal;
    signal.throwIfAborted();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const answer = await outboundRequest(
      request.url,
      { method: request.method, headers, body: body && body.length > 0 ? body : undefined, signal },
      { allowPrivateAddresses: options.allowPrivateAddresses, timeoutMs: options.timeoutMs ?? TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES },
    );
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
    }
    // A Response refuses a body with these statuses.
    const empty = answer.status === 204 || answer.status === 205 || answer.status === 304 || request.method === 'HEAD';
    const response = new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: responseHeaders });
    Object.defineProperty(response, 'url', { value: answer.url });
    return response;
  };
  return guarded as typeof fetch;
}

export function platformAccess(options: { allowPrivateAddresses: boolean; signal: AbortSignal; now(): Date; cache: Map<string, unknown> }): PlatformAccess {
  return { fetch: platformFetch(options), now: options.now, signal: options.signal, cache: options.cache };
}

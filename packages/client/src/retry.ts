import { retryAfterMs } from './errors.ts';

export interface RetryOptions {
  /** Retries of one request after a 429 (default 3; 0: none). */
  maxRetries?: number;
  /**
   * The longest wait the client accepts (default 60,000 ms): a 429 that asks for longer is returned to the
   * caller (as a HearthApiError from the throwing methods) rather than slept on.
   */
  maxDelayMs?: number;
  /** The wait when a 429 names none, doubled at each retry (default 1,000 ms). */
  baseDelayMs?: number;
  /** Told before each wait, e.g. to log it. */
  onRetry?: (event: { attempt: number; delayMs: number; method: string; url: string }) => void;
}

/** openapi-fetch calls its fetch with the request and, on Node, an init of undici's extensions. */
type Fetch = (request: Request, init?: never) => Promise<Response>;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A fetch that answers a 429 by waiting what Hearth asked (Retry-After, else X-RateLimit-Reset) and sending
 * the request again. Hearth counts a token's requests in fixed windows, so the wait it names is when the
 * next request will be let through; retrying sooner would only spend the client's attempts. Writes are
 * retried too: Hearth refuses a request over its limit before any handler runs, so a 429 changed nothing. Any other
 * answer, and a 429 that asks for more than `maxDelayMs`, is returned as it is.
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  return async (request, init) => {
    for (let attempt = 1; ; attempt++) {
      // A request's body can be read once: each attempt sends a copy, the original stays for the next.
      const response = await fetch(attempt <= maxRetries ? request.clone() : request, init);
      if (response.status !== 429 || attempt > maxRetries) return response;
      const delayMs = retryAfterMs(response.headers, Date.now()) ?? baseDelayMs * 2 ** (attempt - 1);
      if (delayMs > maxDelayMs) return response;
      await response.body?.cancel();
      options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url });
      await sleep(delayMs, request.signal);
    }
  };
}

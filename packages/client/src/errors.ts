/**
 * What Hearth answered when it did not succeed, in one shape whatever the route's family: the v2 family's
 * `{success: false, error: {code, message}}`, the core family's `{reason, detail}` and
 * `{status: "not-found", reason}`, `{status: "forbidden", reason}`, `{success: false, message}`, and the
 * rate limit's `{reason, rateLimit}`. The body stays available as Hearth sent it.
 */
export class HearthApiError extends Error {
  override readonly name = 'HearthApiError';
  /** The HTTP status. */
  readonly status: number;
  /**
   * A stable code to branch on: the v2 family's `error.code` (`invalid_contact_id`, `contact_not_found`,
   * `invalid_filter`, …), else one named by the status: `forbidden`, `not_found`, `rate_limited`, `invalid`
   * (other 4xx), `server_error` (5xx).
   */
  readonly code: string;
  readonly method: string;
  /** The URL asked, with its query string. */
  readonly url: string;
  /** The body as Hearth sent it (parsed JSON, or the text when it was not JSON). */
  readonly body: unknown;
  /** Hearth's X-Request-Id for the request, to find it in the server's logs. */
  readonly requestId: string | null;
  /** On a 429: how long Hearth asked to wait (Retry-After, or X-RateLimit-Reset), in ms. */
  readonly retryAfterMs: number | null;

  constructor(init: { status: number; method: string; url: string; body: unknown; headers: Headers }) {
    const { code, message } = describe(init.status, init.body);
    super(`${init.method} ${pathOf(init.url)}: ${init.status} ${code}: ${message}`);
    this.status = init.status;
    this.code = code;
    this.method = init.method;
    this.url = init.url;
    this.body = init.body;
    this.requestId = init.headers.get('x-request-id');
    this.retryAfterMs = init.status === 429 ? retryAfterMs(init.headers, Date.now()) : null;
  }
}

export function isHearthApiError(value: unknown): value is HearthApiError {
  return value instanceof HearthApiError;
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    // The query can be a long URL-encoded filter; the full URL stays in `url`.
    return parsed.pathname;
  } catch {
    return url;
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

function describe(status: number, body: unknown): { code: string; message: string } {
  const fallbackCode =
    status === 403 ? 'forbidden' : status === 404 ? 'not_found' : status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'invalid';
  if (typeof body !== 'object' || body === null) return { code: fallbackCode, message: text(body)?.slice(0, 500) ?? `HTTP ${status}` };
  const record = body as Record<string, unknown>;
  const error = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : null;
  const detail = text(record.detail);
  const message = text(error?.message) ?? text(record.reason) ?? text(record.message) ?? `HTTP ${status}`;
  return { code: text(error?.code) ?? fallbackCode, message: detail && detail !== message ? `${message} (${detail})` : message };
}

/**
 * How long a 429 asks to wait: `Retry-After` (seconds, or an HTTP date), else `X-RateLimit-Reset` (when the
 * window resets, in epoch seconds, as Hearth sends it); null when it says neither.
 */
export function retryAfterMs(headers: Headers, now: number): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) return Math.max(0, Math.round(Number(reset) * 1000 - now));
  return null;
}

/**
 * The console's one way to the API: the typed client (@hearth/client) over the same /api routes a token
 * uses, authenticated by the session cookie instead of a token.
 */
import { createHearthClient } from '@hearth/client';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string) {
  csrfToken = token;
}

export function whenSignedOut(callback: () => void) {
  onSignedOut = callback;
}

/**
 * Paths, parameters, bodies and answers are typed by the OpenAPI document. The browser sends the session
 * cookie by itself (same origin); no retries, so a 429 is shown to the person as the server said it.
 */
export const hearth = createHearthClient({ baseUrl: location.origin, retry: false, headers: { accept: 'application/json' } });

hearth.use({
  onRequest({ request }) {
    // The session's CSRF token: the server refuses a write with the cookie but without it.
    if (request.method !== 'GET') request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
});

/** What openapi-fetch's GET, POST, … answer: the body of a 2xx as `data`, another body as `error`. */
export type Outcome = { data: unknown; error?: never; response: Response } | { data?: never; error: unknown; response: Response };
/** The body of a 2xx of that outcome. */
export type Data<O> = O extends { data: infer T } ? T : never;

/** The failure body's fields the console reads, whichever family of routes answered. */
interface Failure {
  error?: { message?: unknown; code?: unknown } | string;
  reason?: unknown;
  message?: unknown;
}

/**
 * The body of a 2xx; otherwise an ApiError carrying the server's own message, and, when the session has
 * ended, back to the sign-in page.
 */
export async function ok<O extends Outcome>(pending: Promise<O>): Promise<Data<O>> {
  const outcome = await pending;
  const { response } = outcome;
  // A 2xx without a body (204) has no data; no caller reads one from such a route.
  if (response.ok) return outcome.data as Data<O>;
  const body: Failure = typeof outcome.error === 'object' && outcome.error !== null ? outcome.error : {};
  const inner = typeof body.error === 'object' ? body.error : undefined;
  const message = inner?.message ?? body.reason ?? body.message ?? `${response.status} ${response.statusText}`;
  if (response.status === 403 && /session has ended|bearer token is required/.test(String(message))) onSignedOut();
  throw new ApiError(response.status, String(message), typeof inner?.code === 'string' ? inner.code : null);
}

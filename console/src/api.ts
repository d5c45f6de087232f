/** The console's one way to the API: the same /api routes a token uses, authenticated by the session cookie. */

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

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function api<T = Json>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // The session's CSRF token: the server refuses a write with the cookie but without it.
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const json = text ? (JSON.parse(text) as Json) : {};
  if (!response.ok) {
    const message = json.error?.message ?? json.reason ?? json.message ?? `${response.status} ${response.statusText}`;
    if (response.status === 403 && /session has ended|bearer token is required/.test(String(message))) onSignedOut();
    throw new ApiError(response.status, String(message), json.error?.code ?? null);
  }
  return json as T;
}

/** A query string from the given parameters, leaving out empty ones. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

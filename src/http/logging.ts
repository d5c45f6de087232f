import type { FastifyRequest } from 'fastify';

/**
 * What the request log keeps of a request. Some addresses carry personal data (the email in
 * DELETE /community/v1/user/{email}, lookups by email or handle): the log keeps their shape, not the values.
 */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
  };
}

const PERSONAL_QUERY = new Set(['email', 'twitter', 'github', 'linkedin']);

export function redactUrl(url: string): string {
  const [path = '', query] = url.split('?', 2);
  // A receiver's key is not a credential (deliveries are signed), but it is not for everyone to read either.
  const safePath = path.replace(/^(\/community\/v1\/user\/)[^/]+/, '$1[redacted]').replace(/^(\/api\/v2\/receivers\/[^/]+\/)[^/]+/, '$1[redacted]');
  if (query === undefined) return safePath;
  const params = new URLSearchParams(query);
  for (const key of [...params.keys()]) if (PERSONAL_QUERY.has(key)) params.set(key, '[redacted]');
  return `${safePath}?${params.toString()}`;
}

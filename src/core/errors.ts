/**
 * What went wrong, in the domain's words. Only the HTTP layer turns a kind into a status
 * (`http/error-handler.ts`), so services, jobs and the CLI share one error type without speaking HTTP.
 */
export type ErrorKind =
  /** The input is wrong: a bad ID, parameter, body or filter. */
  | 'invalid'
  /** The caller may not do this. */
  | 'forbidden'
  /** What was asked for does not exist (in this community). */
  | 'not_found'
  /** The request contradicts the current state: a duplicate name, a deleted parent. */
  | 'conflict'
  /** The caller spent its allowance for the current window. */
  | 'rate_limited'
  /** The work ran longer than the service allows for one request. */
  | 'timeout'
  /** The process has as much of this work in hand as it takes at once: try again shortly. */
  | 'busy';

/** The state of an exhausted rate limit, for the answer's headers and body. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch seconds at which the current window ends. */
  resetAt: number;
  /** Seconds until then. */
  resetSeconds: number;
  exceeded: boolean;
}

export interface ErrorExtra {
  /** Every offending ID, for v2 `error.invalidIds`. */
  invalidIds?: string[];
  /** For a rate limit: the state of the exhausted limit. */
  rateLimit?: RateLimitState;
  /** core `reason` when it is not the code in kebab case (e.g. `invalid-request-body`). */
  coreReason?: string;
  /** When trying again makes sense, in seconds (the answer's Retry-After). */
  retryAfterSeconds?: number;
}

/**
 * The one error type for expected failures. Anything else that reaches the HTTP layer is a bug and
 * answers 500.
 */
export class HearthError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Machine-readable code, e.g. `invalid_contact_id`, `contact_not_found`, `conflict`. */
    readonly code: string,
    message: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(message);
    this.name = 'HearthError';
  }
}

export const invalidParameters = (message: string, invalidIds?: string[]) =>
  new HearthError('invalid', 'invalid_parameters', message, { invalidIds });

export const invalidId = (entity: string, value: string, expected: string) =>
  new HearthError('invalid', `invalid_${entity}_id`, `"${value}" is not a valid ${entity.replace(/_/g, ' ')} ID (expected ${expected})`, {
    invalidIds: [value],
  });

export const notFound = (code: string, message: string) => new HearthError('not_found', code, message);

export const conflict = (message: string) => new HearthError('conflict', 'conflict', message);

export const forbidden = (reason: string) => new HearthError('forbidden', 'forbidden', reason);

export const rateLimited = (state: RateLimitState) =>
  new HearthError('rate_limited', 'rate_limited', `rate limit exceeded; retry in ${state.resetSeconds} s`, { rateLimit: state });

/**
 * Every code an error may carry, with its HTTP status and when it is given: the one declaration of the API's
 * errors. A code not listed here does not compile, and docs/behaviour.md (Errors) shows this list as a table
 * that test/unit/error-codes.test.ts checks against it. The status is the code's, so no throw site repeats it.
 *
 * How a family renders an error depends on its status alone (`http/error-handler.ts`): v2 shows the code,
 * core shows it only in a 400's `reason` (kebab case, or one of `core` where listed), 403 and 429 look the
 * same in every family. `status: '4xx'` is the HTTP framework's own refusal, which keeps its status.
 */
export const ERROR_CODES = {
  invalid_parameters: {
    status: 400,
    core: ['invalid-request-body', 'invalid-request-parameters'],
    when: 'a parameter or body field is wrong, or faults of several kinds at once',
  },
  invalid_request: { status: '4xx', core: ['invalid-request-body'], when: 'another refusal by the HTTP framework, with its own status' },
  invalid_cursor: { status: 400, when: 'a cursor that is malformed, forged, or of another list' },
  invalid_filter: { status: 400, when: 'a `lightFilter` that does not parse or names what does not exist' },
  invalid_activity_type: { status: 400, core: ['invalid-request-body'], when: 'a pushed activity of an unknown `activityType`' },
  invalid_custom_fields: { status: 400, core: ['invalid-request-body'], when: 'pushed custom field values that do not fit their fields' },
  invalid_custom_field_value: { status: 400, when: 'a bulk update whose only faults are custom field values' },
  invalid_lead_score: { status: 400, when: 'a lead score definition that cannot be computed' },
  invalid_scopes: { status: 400, when: 'a token asked for with an unknown scope' },
  invalid_tracker_key: { status: 400, when: 'a website tracker key that is not of the form `pk_<community>_<24 characters>`' },
  invalid_prompt_id: { status: 400, when: 'a research prompt ID that is not a lowercase name' },
  invalid_status_id: { status: 400, when: 'a segment status that is not an integer or not of the segment' },
  invalid_activity_id: { status: 400, when: 'a malformed activity ID' },
  invalid_app_user_id: { status: 400, when: 'a malformed user ID' },
  invalid_audit_entry_id: { status: 400, when: 'a malformed audit entry ID' },
  invalid_community_id: { status: 400, when: 'a malformed community ID' },
  invalid_connector_id: { status: 400, when: 'a malformed connector ID' },
  invalid_contact_id: { status: 400, when: 'a malformed contact ID, or contacts a bulk update cannot have' },
  invalid_custom_field_id: { status: 400, when: 'a malformed custom field ID, or custom fields a write cannot use' },
  invalid_delivery_id: { status: 400, when: 'a malformed webhook delivery ID' },
  invalid_feed_id: { status: 400, when: 'a malformed feed ID' },
  invalid_industry_id: { status: 400, when: 'a malformed industry code ID' },
  invalid_job_id: { status: 400, when: 'a malformed job ID' },
  invalid_job_opening_id: { status: 400, when: 'a malformed job opening ID' },
  invalid_lead_score_id: { status: 400, when: 'a malformed lead score ID' },
  invalid_location_id: { status: 400, when: 'a malformed location ID' },
  invalid_merge_suggestion_id: { status: 400, when: 'a malformed merge suggestion ID' },
  invalid_news_id: { status: 400, when: 'a malformed news ID' },
  invalid_object_id: { status: 400, when: 'a malformed custom object ID, or objects a bulk update cannot have' },
  invalid_object_type_id: { status: 400, when: 'a malformed object type ID, or an object type that does not fit (a segment of another kind)' },
  invalid_organization_id: { status: 400, when: 'a malformed or missing organization ID, or organizations a bulk update cannot have' },
  invalid_prospector_company_id: { status: 400, when: 'a malformed prospector company ID' },
  invalid_prospector_contact_id: { status: 400, when: 'a malformed prospector contact ID' },
  invalid_provider_id: { status: 400, when: 'a malformed source ID' },
  invalid_segment_id: { status: 400, when: 'a malformed segment ID, or a segment that holds other records' },
  invalid_source_id: { status: 400, when: 'a malformed `destinationSourceId` of the contact custom-field listing' },
  invalid_tag_id: { status: 400, when: 'a malformed tag ID, or tags a bulk update cannot use' },
  invalid_tech_product_id: { status: 400, when: 'a malformed technographic product ID' },
  invalid_topic_id: { status: 400, when: 'a malformed topic ID' },
  invalid_webhook_id: { status: 400, when: 'a malformed webhook ID' },
  invalid_website_visit_id: { status: 400, when: 'a malformed website visit ID' },
  community_required: { status: 400, when: 'a sign-in by an address of several communities that names none' },
  session_required: { status: 400, when: 'a console operation made with a token instead of the session cookie' },
  forbidden: { status: 403, when: 'a missing, malformed, expired or revoked token, a missing scope, or a refused tracker call' },
  sign_in_failed: { status: 403, when: 'a wrong email address or password, or an unknown, used or expired sign-in link' },
  wrong_password: { status: 403, when: 'a password change with a wrong current password' },
  cross_origin: { status: 403, when: 'a console sign-in from another origin' },
  not_found: { status: 404, when: 'an unknown route or console asset' },
  activity_not_found: { status: 404, when: 'an activity the community does not have' },
  buying_committee_not_found: { status: 404, when: 'a community without a buying committee' },
  connector_not_found: { status: 404, when: 'a connector the community does not have' },
  console_not_built: { status: 404, when: 'the console when it is not built' },
  contact_not_found: { status: 404, when: 'a contact the community does not have' },
  custom_field_not_found: { status: 404, when: 'a custom field the community does not have' },
  delivery_not_found: { status: 404, when: 'a webhook delivery the webhook does not have' },
  feed_not_found: { status: 404, when: 'a feed the community does not have' },
  job_not_found: { status: 404, when: 'a job the community does not have' },
  lead_score_not_found: { status: 404, when: 'a lead score the community does not have' },
  location_not_found: { status: 404, when: 'an unknown location' },
  merge_not_found: { status: 404, when: 'an unmerge that names a contact not merged into this one (or whose merge was undone)' },
  merge_suggestion_not_found: { status: 404, when: 'a merge suggestion the community does not have' },
  object_not_found: { status: 404, when: 'a custom object the community does not have' },
  object_type_assoc_not_found: { status: 404, when: 'an association its object type does not have' },
  object_type_not_found: { status: 404, when: 'an object type the community does not have' },
  org_not_found: { status: 404, when: 'an organization the community does not have' },
  prospector_company_not_found: { status: 404, when: 'an unknown prospector company' },
  prospector_contact_not_found: { status: 404, when: 'an unknown prospector contact' },
  receiver_not_found: { status: 404, when: "a connector receiver's address that names no receiver" },
  research_prompt_not_found: { status: 404, when: 'a research prompt the community does not have' },
  segment_not_found: { status: 404, when: 'a segment the community does not have' },
  source_not_found: { status: 404, when: 'a source the community does not have' },
  tag_not_found: { status: 404, when: 'a tag the community does not have' },
  token_not_found: { status: 404, when: 'a token the community does not have' },
  topic_not_found: { status: 404, when: 'an unknown topic' },
  tracker_not_found: { status: 404, when: 'a source without a website tracker, or an unknown tracker key' },
  user_not_found: { status: 404, when: 'a user the community does not have' },
  webhook_not_found: { status: 404, when: 'a webhook the community does not have' },
  method_not_allowed: { status: 405, when: 'a method the route does not take' },
  not_acceptable: { status: 406, when: 'an `Accept` header the route cannot answer' },
  conflict: { status: 409, when: 'a conflict with what is stored: a duplicate name, a custom field change that existing values forbid' },
  last_admin: { status: 409, when: 'a change that would leave the community without an admin' },
  signed_in: { status: 409, when: 'a sign-in link opened in a browser signed in already, without `replaceSession`' },
  user_exists: { status: 409, when: 'a new user with the sign-in address of another' },
  payload_too_large: { status: 413, core: ['invalid-request-body'], when: 'a body larger than the route takes' },
  unsupported_media_type: { status: 415, core: ['invalid-request-body'], when: 'a body of a content type the route does not take' },
  rate_limited: { status: 429, when: 'a spent rate limit' },
  sign_in_braked: { status: 429, when: 'too many failed sign-ins with one email address' },
  internal_server_error: { status: 500, when: 'a bug' },
  busy: { status: 503, when: 'a process with as much of the work in hand as it takes, with `Retry-After`' },
  query_timeout: { status: 503, when: 'a statement that ran past the statement timeout' },
} as const satisfies Record<string, { status: number | '4xx'; core?: readonly string[]; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes a `HearthError` may carry: the rest are the HTTP layer's own (the framework's refusals, a bug). */
export type HearthErrorCode = { [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends keyof typeof KIND_OF_STATUS ? C : never }[ErrorCode];

/** The core `reason`s a code may show instead of its own name in kebab case. */
export type CoreReason<C extends ErrorCode = ErrorCode> = C extends ErrorCode
  ? (typeof ERROR_CODES)[C] extends { core: readonly (infer R)[] }
    ? R
    : never
  : never;

/**
 * What went wrong, in the domain's words: services, jobs and the CLI tell failures apart by kind, which
 * follows from the code's status.
 */
const KIND_OF_STATUS = {
  /** The input is wrong: a bad ID, parameter, body or filter. */
  400: 'invalid',
  /** The caller may not do this. */
  403: 'forbidden',
  /** What was asked for does not exist (in this community). */
  404: 'not_found',
  /** The request contradicts the current state: a duplicate name, a deleted parent. */
  409: 'conflict',
  /** The caller spent its allowance for the current window. */
  429: 'rate_limited',
  /** The work ran too long, or the process has as much of it in hand as it takes: try again later. */
  503: 'unavailable',
} as const;

export type ErrorKind = (typeof KIND_OF_STATUS)[keyof typeof KIND_OF_STATUS];

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

export interface ErrorExtra<C extends ErrorCode = ErrorCode> {
  /** Every offending ID, for v2 `error.invalidIds`. */
  invalidIds?: string[];
  /** For a rate limit: the state of the exhausted limit. */
  rateLimit?: RateLimitState;
  /** core `reason` when it is not the code in kebab case (e.g. `invalid-request-body`). */
  coreReason?: CoreReason<C>;
  /** When trying again makes sense, in seconds (the answer's Retry-After). */
  retryAfterSeconds?: number;
}

/**
 * The one error type for expected failures. Anything else that reaches the HTTP layer is a bug and
 * answers 500.
 */
export class HearthError<C extends HearthErrorCode = HearthErrorCode> extends Error {
  constructor(
    /** Machine-readable code, e.g. `invalid_contact_id`, `contact_not_found`, `conflict`. */
    readonly code: C,
    message: string,
    readonly extra: ErrorExtra<C> = {},
  ) {
    super(message);
    this.name = 'HearthError';
  }

  get status(): (typeof ERROR_CODES)[C]['status'] {
    return ERROR_CODES[this.code].status;
  }

  get kind(): ErrorKind {
    return KIND_OF_STATUS[ERROR_CODES[this.code].status];
  }
}

export const invalidParameters = (message: string, invalidIds?: string[]) => new HearthError('invalid_parameters', message, { invalidIds });

/** The codes of 404s. */
export type NotFoundCode = { [C in HearthErrorCode]: (typeof ERROR_CODES)[C]['status'] extends 404 ? C : never }[HearthErrorCode];

export const notFound = (code: NotFoundCode, message: string) => new HearthError(code, message);

export const conflict = (message: string) => new HearthError('conflict', message);

export const forbidden = (reason: string) => new HearthError('forbidden', reason);

export const rateLimited = (state: RateLimitState) =>
  new HearthError('rate_limited', `rate limit exceeded; retry in ${state.resetSeconds} s`, { rateLimit: state });

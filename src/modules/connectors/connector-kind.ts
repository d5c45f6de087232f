import type { Static, TSchema } from 'typebox';
import type { JsonValue } from '../../db/schema.ts';
import type { ActivityPushBody, UserPushBody } from '../ingestion/index.ts';

/**
 * What one platform (GitHub, Discourse, ...) brings to the connector framework. The framework holds
 * everything common: the connector's row, its encrypted secrets, the public receiver, the durable sync
 * job and its checkpoints, waiting out rate limits, state, and handing pushes to the batch ingestion
 * path. A kind only speaks its platform: it checks signatures, reads the platform's records and turns them
 * into the core pushes' bodies.
 */

export type ActivityPush = Static<typeof ActivityPushBody>;
export type UserPush = Static<typeof UserPushBody>;

/** Pushes made from platform records, stored through the batch ingestion path (users first, then activities). */
export interface Translation {
  /** People without an activity of their own (a profile read, a user who only signed up). */
  users: UserPush[];
  /** Activities, each with its person in `user`; `id` is the platform's own ID, so a record seen twice is one activity. */
  activities: ActivityPush[];
  /** Records left out on purpose, and why (a bot, an event the connector does not follow): shown in the delivery's outcome. */
  skipped: string[];
}

/** Request headers with lower-case names, as Node gives them. */
export type Headers = Record<string, string | string[] | undefined>;

/** A verified delivery, parsed. */
export interface Delivery {
  headers: Headers;
  /** The platform's event name (GitHub's `x-github-event`, Discourse's `x-discourse-event-type` + event). */
  event: string;
  body: unknown;
}

/** How a kind reaches its platform: requests go through Hearth's outbound guard, and stop when the job stops. */
export interface PlatformAccess {
  /** `fetch` through the outbound rules (private addresses refused unless the operator allows them), with a timeout. */
  fetch: typeof fetch;
  now(): Date;
  signal: AbortSignal;
  /**
   * What a kind keeps between calls (a forum's categories, a GitHub App's installation token): one map per
   * connector service, so two servers in one process (the tests') never see each other's entries. Keys
   * start with the kind's name.
   */
  cache: Map<string, unknown>;
}

/**
 * The platform asked us to wait (GitHub's primary or secondary limit, a 429 with `Retry-After`, a run of
 * 5xx). The framework records "waiting until `until`", gives the job back to the queue to run again at
 * that time, and goes on from the stream's checkpoint: nothing is retried in a loop.
 */
export class RateLimitWait extends Error {
  constructor(
    readonly until: Date,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * The platform refused the credential (a 401, a revoked or expired token). The connector fails once with
 * this message and is not retried until its secrets change.
 */
export class CredentialRejected extends Error {}

/** One page of a stream: the pushes it makes and where the next page starts. */
export interface StreamPage {
  translation: Translation;
  /** Where to go on from: saved after the page's pushes are stored. After the last page, where the next sync starts (incremental). */
  checkpoint: JsonValue;
  /** True when the stream is caught up: the next sync starts again from `checkpoint`, for what is new. */
  done: boolean;
  /** Records of the stream the platform says exist, when it says (for progress); null if unknown. */
  total?: number | null;
  /**
   * The platform's records this page read for the first time (a star, an issue, a post; not the pushes they
   * make, and not the records of a page read again that an earlier run already counted): the stream's
   * progress adds them, to compare with `total`. Absent: the page's activities are counted.
   */
  records?: number;
  /**
   * The platform said no more requests until then (GitHub's `x-ratelimit-remaining: 0` with its reset): this
   * page is stored, then the framework waits as for RateLimitWait instead of spending a refused request.
   */
  pauseUntil?: Date | null;
}

/**
 * How a platform that sends webhooks (GitHub, Discourse, Slack) reaches Hearth's public receiver. A platform
 * without them (Discord's REST API, Stack Exchange, Hacker News' search) has none, and is only read by syncs.
 */
export interface ConnectorReceiver<Settings = unknown, Secrets = unknown> {
  /**
   * The platform issues the signing secret (Slack's app credentials) rather than taking one chosen by the
   * admin (GitHub's and Discourse's webhook settings): then none is made for the admin to paste there.
   */
  platformIssuesWebhookSecret?: boolean;
  /**
   * Checks a receiver request's signature over the raw bytes, before anything is parsed. `now` is the
   * receiver's clock, for platforms that sign a timestamp and refuse old ones (Slack): the framework always
   * gives it, and a kind that needs it refuses a request checked without it.
   */
  verify(raw: Buffer, headers: Headers, secrets: Secrets, now?: Date): Promise<boolean>;
  /**
   * The platform's delivery ID (GitHub's `x-github-delivery`, Discourse's `x-discourse-event-id`, Slack's
   * body's `event_id`): a redelivery is stored once. `body` is the verified delivery, parsed, for platforms
   * that put the ID there rather than in a header.
   */
  deliveryId(headers: Headers, body?: unknown): string | null;
  /** The event name of a delivery, from its headers (or its parsed body); null when the request is not one of the platform's deliveries. */
  eventOf(headers: Headers, body?: unknown): string | null;
  /**
   * A verified delivery the kind answers itself instead of storing it (Slack's `url_verification`, which
   * wants its `challenge` back): the receiver's 200 body. Null, or absent: the delivery is stored as usual.
   */
  answer?(delivery: Delivery): Record<string, string> | null;
  /** The pushes of one verified delivery (empty with `skipped` for events the connector does not follow). */
  translate(delivery: Delivery, settings: Settings): Translation;
}

export interface ConnectorKind<Settings = unknown, Secrets = unknown> {
  /** `github`, `discourse`: the source's kind, and the receiver's path segment. */
  kind: string;
  /** The platform's name: the provider's `serviceName` and the default source name. */
  platformName: string;
  /** Settings (public, shown in answers). */
  settingsSchema: TSchema;
  /** Secrets (write-only: stored encrypted, never shown); `webhookSecret` is the receiver's signing secret. */
  secretsSchema: TSchema;
  /** The platform's webhooks; absent when it has none to send (the connector then has no receiver URL). */
  receiver?: ConnectorReceiver<Settings, Secrets>;
  /**
   * How often the platform is read for what is new, when that is more often than the operator's sync interval
   * (HEARTH_CONNECTOR_SYNC_INTERVAL): a platform without webhooks is seen only through its syncs (Discord's
   * channels, read every minute). Absent: the operator's interval.
   */
  syncIntervalMs?: number;
  /** The streams a sync walks, each with its own checkpoint: one per repository x record kind, for instance. */
  streams(settings: Settings, secrets: Secrets, access: PlatformAccess): Promise<string[]>;
  /** One page of `stream` from `checkpoint` (null: the first sync). Throws RateLimitWait or CredentialRejected. */
  page(stream: string, checkpoint: JsonValue | null, settings: Settings, secrets: Secrets, access: PlatformAccess): Promise<StreamPage>;
  /**
   * Full profiles of people the connector has seen only by reference (a webhook's or a list's user carries an
   * ID, a login and an avatar; the profile has the name, public email, company, blog, location). The
   * framework records every `user.id` its pushes name and, after the streams, asks for the ones it has no
   * profile of, a few at a time, with the same rate-limit handling. Absent: the platform's records are enough.
   */
  profiles?(platformUserIds: string[], settings: Settings, secrets: Secrets, access: PlatformAccess): Promise<UserPush[]>;
  /** Tries the credential and settings against the platform: a sentence of what was found, or throws with what is wrong. */
  test(settings: Settings, secrets: Secrets, access: PlatformAccess): Promise<string>;
}

import { createHmac } from 'node:crypto';

/*
 * Discourse webhook deliveries, for tests. Discourse's API description has no webhook payloads; these follow
 * its webhooks guide, "Configure webhooks that trigger on Discourse events to integrate with external
 * services" (https://meta.discourse.org/t/configure-webhooks-that-trigger-on-discourse-events-to-integrate-with-external-services/49045):
 * the body is `{ "<event type>": <record> }`, JSON; the headers name the forum (X-Discourse-Instance), the
 * delivery (X-Discourse-Event-Id), its type (X-Discourse-Event-Type: topic, post, like, solved, ...) and event
 * (X-Discourse-Event: topic_created, post_created, post_liked, accepted_solution, ...), and sign the raw body
 * (X-Discourse-Event-Signature: sha256=<hex HMAC-SHA256 keyed with the webhook's secret>).
 * The records: a post as the API's post shapes (GET /posts.json, GET /t/{id}.json; the guide's post
 * payload adds topic_title, category_slug, topic_archetype and raw), a topic as GET /t/{id}.json without its
 * post stream plus created_by and last_poster, a like as { post, user } (the liker as a basic user:
 * id, username, name, avatar_template), an accepted solution as the answer's post.
 */

type Json = Record<string, unknown>;

export interface DeliveryParts {
  secret: string;
  type: string;
  event: string;
  body: Json;
  instance?: string;
  eventId?: number;
}

export interface SignedDelivery {
  raw: Buffer;
  /** Lower-case names, as Node gives a request's headers. */
  headers: Record<string, string>;
  body: Json;
}

let eventCounter = 1000;

export function sign(secret: string, raw: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/** A delivery as Discourse sends it: the raw JSON body and its headers, signed with `secret`. */
export function signedDelivery(parts: DeliveryParts): SignedDelivery {
  const raw = Buffer.from(JSON.stringify(parts.body));
  return {
    raw,
    body: parts.body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Discourse/3.4.0',
      'x-discourse-instance': parts.instance ?? 'https://forum.example.com',
      'x-discourse-event-id': String(parts.eventId ?? eventCounter++),
      'x-discourse-event-type': parts.type,
      'x-discourse-event': parts.event,
      'x-discourse-event-signature': sign(parts.secret, raw),
    },
  };
}

/** Posts a signed delivery to a receiver (e.g. Hearth's /api/v2/receivers/discourse/{key}); answers status and body. */
export async function deliver(receiverUrl: string, delivery: SignedDelivery): Promise<{ status: number; body: unknown }> {
  const response = await fetch(receiverUrl, { method: 'POST', headers: delivery.headers, body: new Uint8Array(delivery.raw) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text
  }
  return { status: response.status, body };
}

export const bodies = {
  /** The webhook's "Ping" button (WebHooksController#ping: event type and name "ping"; the job's body for it). */
  ping: () => ({ ping: 'OK' }),
  postCreated: (post: Json) => ({ post }),
  postLiked: (post: Json, liker: Json) => ({ like: { post, user: liker } }),
  acceptedSolution: (post: Json) => ({ solved: post }),
  topicCreated: (post: Json) => ({
    topic: {
      id: post.topic_id,
      title: post.topic_title,
      fancy_title: post.topic_title,
      posts_count: 1,
      created_at: post.created_at,
      views: 0,
      reply_count: 0,
      like_count: 0,
      last_posted_at: post.created_at,
      visible: true,
      closed: false,
      archived: false,
      archetype: 'regular',
      slug: post.topic_slug,
      category_id: post.category_id,
      word_count: 5,
      deleted_at: null,
      user_id: post.user_id,
      featured_link: null,
      pinned_globally: false,
      pinned_at: null,
      pinned_until: null,
      unpinned: null,
      pinned: false,
      highest_post_number: 1,
      deleted_by: null,
      bookmarked: false,
      participant_count: 1,
      thumbnails: null,
      tags: [],
      tags_descriptions: {},
      created_by: { id: post.user_id, username: post.username, name: post.name, avatar_template: post.avatar_template },
      last_poster: { id: post.user_id, username: post.username, name: post.name, avatar_template: post.avatar_template },
    },
  }),
};

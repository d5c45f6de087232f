import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Delivery, Headers, Translation } from '../connector-kind.ts';
import { acceptedActivity, emptyTranslation, likeActivity, postSkipReason, translatePost } from './discourse-activities.ts';
import { isSystemUser } from './discourse-people.ts';
import type { DiscoursePost, DiscourseSecrets, DiscourseSettings, DiscourseUserRef } from './discourse.schemas.ts';

/*
 * Discourse's webhooks, as its guide describes them ("Configure webhooks that trigger on Discourse events to
 * integrate with external services", https://meta.discourse.org/t/configure-webhooks-that-trigger-on-discourse-events-to-integrate-with-external-services/49045):
 * a POST whose body is `{ "<event type>": <the record> }`, with the headers
 *   X-Discourse-Instance         the forum's base URL
 *   X-Discourse-Event-Id         the delivery's number (a counter of that forum)
 *   X-Discourse-Event-Type       topic, post, user, like, solved, ...
 *   X-Discourse-Event            topic_created, post_created, post_liked, accepted_solution, ...
 *   X-Discourse-Event-Signature  sha256=<hex HMAC-SHA256 of the raw body, keyed with the webhook's secret>
 */

function header(headers: Headers, name: string): string | null {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
}

export async function verifyDiscourse(raw: Buffer, headers: Headers, secrets: DiscourseSecrets): Promise<boolean> {
  const signature = header(headers, 'x-discourse-event-signature');
  if (!signature || !signature.startsWith('sha256=') || !secrets.webhookSecret) return false;
  const given = Buffer.from(signature.slice('sha256='.length).trim(), 'hex');
  const expected = createHmac('sha256', secrets.webhookSecret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The event ID counts per forum: two forums sending to one receiver key could repeat it, so the instance is part of it. */
export function discourseDeliveryId(headers: Headers): string | null {
  const id = header(headers, 'x-discourse-event-id');
  if (!id) return null;
  return `${header(headers, 'x-discourse-instance') ?? ''}#${id}`;
}

export function discourseEventOf(headers: Headers): string | null {
  const type = header(headers, 'x-discourse-event-type');
  if (!type) return null;
  const event = header(headers, 'x-discourse-event');
  return event ? `${type}/${event}` : type;
}

/** The events turned into activities; any other is stored and skipped, saying so. */
export const FOLLOWED_EVENTS = ['post/post_created', 'like/post_liked', 'solved/accepted_solution', 'topic/topic_created'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asPost(value: unknown): DiscoursePost | null {
  if (!isRecord(value)) return null;
  const { id, user_id: userId, topic_id: topicId, post_number: postNumber, created_at: createdAt } = value;
  if (typeof id !== 'number' || typeof userId !== 'number' || typeof topicId !== 'number' || typeof postNumber !== 'number' || typeof createdAt !== 'string')
    return null;
  return value as unknown as DiscoursePost;
}

function asUser(value: unknown): DiscourseUserRef | null {
  if (!isRecord(value) || typeof value.id !== 'number' || typeof value.username !== 'string') return null;
  return value as unknown as DiscourseUserRef;
}

/** The category a webhook post names: `category_slug` (WebHookPostSerializer's slug_for_url), when it has one. */
function categoryOf(post: DiscoursePost): string | null {
  return post.category_slug || null;
}

export function translateDiscourse(delivery: Delivery, settings: DiscourseSettings): Translation {
  const translation = emptyTranslation();
  const body = isRecord(delivery.body) ? delivery.body : {};
  switch (delivery.event) {
    case 'post/post_created': {
      const post = asPost(body.post);
      if (!post) return skip(translation, `${delivery.event}: the body has no post`);
      translatePost(post, settings, categoryOf(post), translation, false);
      return translation;
    }
    case 'like/post_liked': {
      const like = isRecord(body.like) ? body.like : {};
      const post = asPost(like.post);
      const liker = asUser(like.user);
      if (!post || !liker) return skip(translation, `${delivery.event}: the body has no post or user`);
      if (isSystemUser(liker)) return skip(translation, `like of post ${post.id}: by ${liker.username}, a Discourse system account`);
      const reason = postSkipReason({ ...post, user_id: liker.id, username: liker.username }, settings, categoryOf(post));
      if (reason) return skip(translation, `like of ${reason}`);
      translation.activities.push(likeActivity(post, liker, settings, categoryOf(post)));
      return translation;
    }
    case 'solved/accepted_solution': {
      const post = asPost(body.solved);
      if (!post) return skip(translation, `${delivery.event}: the body has no post`);
      const reason = postSkipReason(post, settings, categoryOf(post));
      if (reason) return skip(translation, `accepted answer: ${reason}`);
      translation.activities.push(acceptedActivity(post, settings, categoryOf(post)));
      return translation;
    }
    case 'topic/topic_created': {
      // The topic's payload has no body and names its category only by ID; the topic's first post (a
      // post_created with post_number 1) carries both and is the forum_topic. Taking both would race:
      // the latest push of an activity replaces it, and this one would blank the body.
      const topic = isRecord(body.topic) ? body.topic : {};
      return skip(translation, `topic ${String(topic.id ?? '?')}: taken from its first post (post_created), which carries its body and category`);
    }
    // The webhook's "Ping" button sends event type and name "ping" (WebHooksController#ping).
    case 'ping/ping':
    case 'ping':
      return skip(translation, 'ping: the forum\'s test delivery (the webhook\'s "Ping" button)');
    default:
      return skip(translation, `${delivery.event}: not an event the Discourse connector follows (it follows ${FOLLOWED_EVENTS.slice(0, 3).join(', ')})`);
  }
}

function skip(translation: Translation, reason: string): Translation {
  translation.skipped.push(reason);
  return translation;
}

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';

/**
 * GitHub's published webhook examples (@octokit/webhooks-examples: real deliveries, per event) and a way to
 * deliver one as GitHub does: the JSON body signed with the webhook secret in `X-Hub-Signature-256`.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface ExampleFile {
  name: string;
  examples: Json[];
}

let cache: ExampleFile[] | null = null;

function exampleFiles(): ExampleFile[] {
  if (!cache) {
    const require = createRequire(import.meta.url);
    cache = JSON.parse(readFileSync(require.resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8')) as ExampleFile[];
  }
  return cache;
}

/** Every published example of an event (with the given action, when one is named), each a fresh copy. */
export function webhookExamples(event: string, action?: string): Json[] {
  const file = exampleFiles().find((entry) => entry.name === event);
  if (!file) throw new Error(`No published example of the ${event} event`);
  return file.examples.filter((body) => action === undefined || body.action === action).map((body) => structuredClone(body));
}

/** The names of every event with published examples. */
export function webhookEventNames(): string[] {
  return exampleFiles().map((entry) => entry.name);
}

/** A delivery as GitHub sends it: the raw bytes and the headers, signed with `secret`. */
export async function signedDelivery(event: string, body: unknown, secret: string, deliveryId: string = randomUUID()) {
  const raw = JSON.stringify(body);
  return {
    raw: Buffer.from(raw),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/stand-in',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-github-hook-id': '1',
      'x-hub-signature-256': await sign(secret, raw),
    } as Record<string, string>,
  };
}

/** Posts a signed delivery to a receiver URL (Hearth's /api/v2/receivers/github/<key>); answers the receiver's response. */
export async function postDelivery(url: string, event: string, body: unknown, secret: string, deliveryId?: string): Promise<Response> {
  const delivery = await signedDelivery(event, body, secret, deliveryId);
  return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.raw });
}

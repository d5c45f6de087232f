import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed identify calls of the website tracker. The site's backend, which knows who signed in, signs the
 * address with the tracker's secret; the page passes the signature to `hearth('identify', {email, signature})`.
 * Signed is the address trimmed and lower-cased, nothing more, so that any language can reproduce it
 * (Hearth's own normalization, which folds Gmail's dots and `+tags`, is applied after the check).
 */

export const IDENTIFY_SECRET_PREFIX = 'tsk_';

export function newIdentifySecret(): string {
  return `${IDENTIFY_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What is signed: the address as the page gives it, trimmed and lower-cased. */
function signedText(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Whether `signature` (64 hex digits) is the HMAC-SHA256 of the address under the secret (its text as the
 * key, prefix included); compared in constant time.
 */
export function verifyIdentify(secret: string, email: string, signature: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(signedText(email), 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

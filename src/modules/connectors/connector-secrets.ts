import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A connector's secrets (tokens, webhook signing secrets) are stored sealed: AES-256-GCM under a key derived
 * with HKDF-SHA256 from the deployment secret (the one that signs tokens and cursors), bound to their
 * connector (community and source as additional data), so a sealed value copied to another row does not
 * open. The sealed text names its format and its key (`v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url): a
 * deployment secret that changed is told apart from damage, and the admin is asked to enter the secrets
 * again instead of the connector failing on garbage.
 */

const VERSION = 'v1';
const INFO = 'hearth connector secrets v1';

export class SecretsUnreadable extends Error {}

export interface SecretsKey {
  key: Buffer;
  /** Names the key without revealing it: the start of its SHA-256. */
  id: string;
}

export function deriveSecretsKey(deploymentSecret: string): SecretsKey {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(deploymentSecret, 'utf8'), Buffer.from('hearth connectors'), Buffer.from(INFO), 32));
  return { key, id: createHash('sha256').update(key).digest('base64url').slice(0, 8) };
}

const boundTo = (communityId: number, sourceId: number) => Buffer.from(`connector:${communityId}:${sourceId}`);

export function sealSecrets(key: SecretsKey, communityId: number, sourceId: number, secrets: Record<string, unknown>): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(boundTo(communityId, sourceId));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  return [VERSION, key.id, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

export const ENTER_AGAIN =
  "the connector's secrets were sealed under another deployment secret (HEARTH_JWT_SECRET or the database's signing key changed): enter the secrets again";

export function openSecrets(key: SecretsKey, communityId: number, sourceId: number, sealed: string): Record<string, unknown> {
  const parts = sealed.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION)
    throw new SecretsUnreadable(`the connector's secrets are in a form this version cannot read: enter the secrets again`);
  const [, keyId, iv, ciphertext, tag] = parts as [string, string, string, string, string];
  if (keyId !== key.id) throw new SecretsUnreadable(ENTER_AGAIN);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(boundTo(communityId, sourceId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new SecretsUnreadable("the connector's stored secrets are damaged (they do not open under this deployment's key): enter the secrets again");
  }
}

/** Secrets shorter than this are not looked for in messages (a short value would blank ordinary words). */
const MIN_REDACTED_LENGTH = 6;

/**
 * A message with every secret's value replaced by `[secret]`, as given and URL-encoded: a platform's error
 * (or a client library's) may echo what it was sent, and messages become a connector's `reason`, a test's
 * answer, a job's error and log lines.
 */
export function redactSecrets(message: string, secrets: Record<string, unknown>): string {
  let redacted = message;
  const values = Object.values(secrets).filter((value): value is string => typeof value === 'string' && value.length >= MIN_REDACTED_LENGTH);
  // Longest first, so a secret that contains another is replaced whole.
  for (const value of values.sort((a, b) => b.length - a.length)) {
    for (const form of new Set([value, encodeURIComponent(value), value.trim()])) {
      if (form.length >= MIN_REDACTED_LENGTH) redacted = redacted.split(form).join('[secret]');
    }
  }
  return redacted;
}

import { describe, expect, it } from 'vitest';
import { deriveSecretsKey, ENTER_AGAIN, openSecrets, sealSecrets, SecretsUnreadable } from '../../src/modules/connectors/connector-secrets.ts';

describe("connectors' sealed secrets", () => {
  const key = deriveSecretsKey('the deployment secret');
  const secrets = { token: 'ghp_very-secret', webhookSecret: 'whs-1234' };

  it('opens what it sealed, and the sealed text shows no value', () => {
    const sealed = sealSecrets(key, 1, 7, secrets);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('very-secret');
    expect(openSecrets(key, 1, 7, sealed)).toEqual(secrets);
    // Two seals of the same secrets differ (a fresh IV each time).
    expect(sealSecrets(key, 1, 7, secrets)).not.toBe(sealed);
  });

  it('refuses a tampered text, or one moved to another connector, as damaged', () => {
    const sealed = sealSecrets(key, 1, 7, secrets);
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    ciphertext.writeUInt8(ciphertext.readUInt8(0) ^ 1, 0);
    const tampered = [...parts.slice(0, 3), ciphertext.toString('base64url'), parts[4]].join('.');
    expect(() => openSecrets(key, 1, 7, tampered)).toThrow(/damaged/);
    expect(() => openSecrets(key, 1, 8, sealed)).toThrow(/damaged/);
    expect(() => openSecrets(key, 2, 7, sealed)).toThrow(SecretsUnreadable);
  });

  it('tells a changed deployment secret apart, asking for the secrets again', () => {
    const sealed = sealSecrets(key, 1, 7, secrets);
    const other = deriveSecretsKey('another deployment secret');
    expect(other.id).not.toBe(key.id);
    expect(() => openSecrets(other, 1, 7, sealed)).toThrow(ENTER_AGAIN);
    expect(() => openSecrets(key, 1, 7, 'v0.garbage')).toThrow(/enter the secrets again/);
  });
});

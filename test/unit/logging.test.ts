import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/logging.ts';

describe('request log redaction', () => {
  it('keeps the shape of addresses that carry personal data, not the values', () => {
    expect(redactUrl('/community/v1/user/ada%40example.org')).toBe('/community/v1/user/[redacted]');
    expect(redactUrl('/community/v1/user?email=ada%40example.org')).toBe('/community/v1/user?email=%5Bredacted%5D');
    expect(redactUrl('/community/v1/members?github=ada&limit=2')).toBe('/community/v1/members?github=%5Bredacted%5D&limit=2');
  });

  it("keeps a connector receiver's key out of the log", () => {
    expect(redactUrl('/api/v2/receivers/github/rk_1_abcdefghijklmnopqrstuvwxyz012345')).toBe('/api/v2/receivers/github/[redacted]');
  });

  it('leaves other addresses alone', () => {
    expect(redactUrl('/api/v2/providers?limit=5&cursor=abc')).toBe('/api/v2/providers?limit=5&cursor=abc');
    expect(redactUrl('/community/v1/source/1/user')).toBe('/community/v1/source/1/user');
  });
});

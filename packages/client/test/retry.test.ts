import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryAfterMs } from '../src/errors.ts';
import { createHearthClient, HearthApiError } from '../src/index.ts';

/**
 * What Hearth's own 429s do not show (a reset time without Retry-After, an HTTP date, a retried body, an
 * abort during the wait), against a local server that answers as the test tells it.
 */
describe('retries on 429', () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: { method: string; body: string; at: number }[] = [];
  /** The answers still to give, first first; then 200s. */
  let script: { status: number; headers: Record<string, string> }[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method!, body, at: Date.now() });
        const next = script.shift() ?? { status: 200, headers: {} };
        response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        response.end(
          JSON.stringify(next.status === 200 ? { success: true, data: { id: 's_1', name: 'x' } } : { reason: 'rate limit exceeded', rateLimit: {} }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads Retry-After in seconds or as a date, else X-RateLimit-Reset, else nothing', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:02 GMT' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 5) }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': '1', 'x-ratelimit-reset': String(now / 1000 + 5) }), now)).toBe(1000);
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset': String(now / 1000 - 5) }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });

  it('waits until X-RateLimit-Reset when there is no Retry-After, and sends the same body again', async () => {
    seen.length = 0;
    const resetAt = Math.ceil(Date.now() / 1000) + 1;
    script = [{ status: 429, headers: { 'x-ratelimit-reset': String(resetAt) } }];
    const hearth = createHearthClient({ baseUrl, token: 't' });
    const created = await hearth.post('/api/v2/segments', { body: { name: 'Retried' } });
    expect(created).toMatchObject({ success: true });
    expect(seen.map(({ method, body }) => [method, body])).toEqual([
      ['POST', '{"name":"Retried"}'],
      ['POST', '{"name":"Retried"}'],
    ]);
    expect(seen[1]!.at).toBeGreaterThanOrEqual(resetAt * 1000 - 5);
  });

  it('stops after maxRetries and gives the last 429', async () => {
    seen.length = 0;
    script = Array.from({ length: 5 }, () => ({ status: 429, headers: { 'retry-after': '0' } }));
    const hearth = createHearthClient({ baseUrl, retry: { maxRetries: 2 } });
    const error = await hearth.get('/api/v2/segments').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HearthApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 0 });
    expect(seen).toHaveLength(3);
  });

  it('backs off without a hint, and stops waiting when the request is aborted', async () => {
    script = Array.from({ length: 4 }, () => ({ status: 429, headers: {} }));
    const waits: number[] = [];
    const hearth = createHearthClient({ baseUrl, retry: { baseDelayMs: 10, maxRetries: 3, onRetry: ({ delayMs }) => waits.push(delayMs) } });
    await expect(hearth.get('/api/v2/segments')).rejects.toThrow(HearthApiError);
    expect(waits).toEqual([10, 20, 40]);

    script = [{ status: 429, headers: { 'retry-after': '30' } }];
    const controller = new AbortController();
    const started = Date.now();
    const pending = hearth.get('/api/v2/segments', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

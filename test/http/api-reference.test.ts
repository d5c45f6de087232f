import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';

/**
 * What /docs answers, as a browser reads it (test/http/api-reference-browser.test.ts shows what the browser
 * then does): a sandboxed page with a strict policy, no frame, nothing from the internet.
 */
describe.each(ENGINES)('the API reference at /docs (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('serves its page in a sandbox of its own, which no site may frame', async () => {
    const page = await get('/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = String(page.headers['content-security-policy']).split(/;\s*/);
    expect(policy).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        'sandbox allow-scripts allow-popups allow-downloads',
      ]),
    );
    // Never the console's origin: a sandbox that allowed it would share everything the sandbox keeps apart.
    expect(policy.join(';')).not.toContain('allow-same-origin');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    // The redirect from /docs carries the same policy.
    const redirect = await get('/docs');
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
  });

  it('loads nothing from the internet and runs no inline script', async () => {
    const html = (await get('/docs/')).body;
    expect(html).not.toMatch(/https?:\/\//);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attributes, body]) => ({ attributes: attributes!, body: body! }));
    expect(scripts.map((script) => /\bsrc="([^"]+)"/.exec(script.attributes)?.[1] ?? null)).toEqual([null, '/docs/storage.js', '/docs/js/scalar.js']);
    // The one script without a source is Scalar's options, which browsers do not run.
    expect(scripts[0]!.attributes).toContain('type="application/json"');
    expect(scripts.every((script) => script.body.trim() === '')).toBe(true);
    const options = JSON.parse(
      /data-configuration="([^"]*)"/
        .exec(html)![1]!
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );
    expect(options).toMatchObject({ withDefaultFonts: false, hideTestRequestButton: true, telemetry: false });
    for (const url of ['/docs/storage.js', '/docs/js/scalar.js']) {
      const script = await get(url);
      expect(script.statusCode, url).toBe(200);
      expect(script.headers['content-type'], url).toMatch(/javascript/);
      expect(script.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('lets any origin read the OpenAPI document, which the sandboxed page fetches', async () => {
    const document = await get('/openapi.json');
    expect(document.statusCode).toBe(200);
    expect(document.headers['access-control-allow-origin']).toBe('*');
    // Nothing else is opened to other origins.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v2/me', headers: { authorization: `Bearer ${t.token}`, origin: 'null' } })).headers[
        'access-control-allow-origin'
      ],
    ).toBeUndefined();
  });
});

import type { RouteOptions } from 'fastify';
import scalar from '@scalar/fastify-api-reference';
import type { HearthApp } from './types.ts';

/** Where the interactive API reference is served (by @scalar/fastify-api-reference, which hides its routes). */
export const API_REFERENCE = '/docs';

/** Where its page finds the document it shows, which any origin may read (see the policy below). */
export const OPENAPI_DOCUMENT = '/openapi.json';

/**
 * The reference's answers run in a sandbox: an opaque origin of their own, not the console's. A script on
 * the page (Scalar's, or anything that got into it) then shares nothing with the console: what it fetches
 * from the API goes without the console's cookie (to the browser it is another site) and its answers cannot
 * be read (no CORS is granted to the API), so neither the session's data nor its CSRF token (from
 * GET /api/v2/session) is within its reach; and the console's windows are another origin's, out of reach
 * too. A path of its own could not do that: every page of an origin may read every other page of it. The
 * rest of the policy limits what the page loads to this server (Scalar's script, the document, no fonts or
 * anything else from the internet), and no site may frame it.
 */
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar injects its stylesheet and sets style attributes as it renders.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  // Scripts run, links may open new tabs (themselves sandboxed), and the document can be downloaded; nothing
  // of the origin is shared.
  'sandbox allow-scripts allow-popups allow-downloads',
].join('; ');

const HEADERS = {
  'Content-Security-Policy': POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Scalar's options: the system's fonts instead of the ones it would fetch from its own servers, and none of
 * its features that call services on the internet (telemetry, the AI agent, MCP, the developer tools'
 * sharing and deploying); the policy would block those requests anyway. No "Test request" button either:
 * from the sandbox an answer of the API cannot be read (which is the point), so the button could only fail.
 * The reference still shows each operation's curl and code samples.
 */
const CONFIGURATION = {
  title: 'Hearth API',
  withDefaultFonts: false,
  hideTestRequestButton: true,
  hideClientButton: true,
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
};

/**
 * Scalar reads `localStorage` when it starts, which an opaque origin may not use (reading it throws). This
 * script, loaded before Scalar's, gives the page storage that lasts as long as the page.
 */
const STORAGE_SHIM = `(function () {
  function memory() {
    var items = new Map();
    return {
      get length() { return items.size; },
      key: function (i) { return Array.from(items.keys())[i] ?? null; },
      getItem: function (k) { return items.has(String(k)) ? items.get(String(k)) : null; },
      setItem: function (k, v) { items.set(String(k), String(v)); },
      removeItem: function (k) { items.delete(String(k)); },
      clear: function () { items.clear(); }
    };
  }
  ['localStorage', 'sessionStorage'].forEach(function (name) {
    try { window[name].getItem('probe'); } catch (e) { Object.defineProperty(window, name, { value: memory(), configurable: true }); }
  });
})();
`;

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The page: no inline script (the policy allows none); Scalar reads its options from the element it replaces. */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Hearth API</title>
  </head>
  <body>
    <script id="api-reference" type="application/json" data-url="${OPENAPI_DOCUMENT}" data-configuration="${escapeAttribute(JSON.stringify(CONFIGURATION))}"></script>
    <script src="${API_REFERENCE}/storage.js"></script>
    <script src="${API_REFERENCE}/js/scalar.js"></script>
  </body>
</html>
`;

/**
 * The reference at /docs: Scalar's plugin serves its script and the redirect from /docs; its page is
 * replaced by ours (onRoute), which names no CDN and runs no inline script. Every answer under /docs
 * carries the policy.
 */
export async function registerApiReference(app: HearthApp): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.method === 'GET' && route.url === `${API_REFERENCE}/`) {
      route.handler = async (_request, reply) => reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(PAGE);
    }
  });
  await app.register(scalar, {
    routePrefix: API_REFERENCE,
    configuration: { url: OPENAPI_DOCUMENT },
    hooks: {
      onRequest: async (_request, reply) => {
        reply.headers(HEADERS);
      },
    },
  });
  app.get(`${API_REFERENCE}/storage.js`, { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').headers(HEADERS).send(STORAGE_SHIM),
  );
}

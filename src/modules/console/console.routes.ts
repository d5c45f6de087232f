import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { HearthError } from '../../core/errors.ts';
import type { HearthApp } from '../../http/types.ts';

/** The console, built and committed (`npm run build:console`; docs/console.md), served as it is. */
export const CONSOLE_DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../console/dist');

/**
 * The console's pages: each is the same document, whose script shows the page its address names. Listed
 * one by one (not a catch-all) so that every other path keeps its JSON 404. Every `url` field of the API
 * (`/contacts/c_N`, `/organizations/o_N`, `/activities/a_N`, `/segments/s_N`) is one of them.
 */
export const CONSOLE_PAGES = [
  '/',
  '/sign-in',
  '/contacts',
  '/contacts/:id',
  '/organizations',
  '/organizations/:id',
  '/activities',
  '/activities/:id',
  '/segments',
  '/segments/:id',
  '/tags',
  '/tokens',
  '/sources',
  '/users',
  '/removal-requests',
  '/jobs',
  '/audit-log',
  '/account',
] as const;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The pages run only the console's own script and talk only to this origin; no other site may frame them
 * (clickjacking) and no address leaves in a Referer.
 */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

function readDist(dir: string): { index: string | null; assets: Map<string, { body: Buffer; type: string }> } {
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetDir = path.join(dir, 'assets');
  const indexFile = path.join(dir, 'index.html');
  if (!fs.existsSync(indexFile)) return { index: null, assets };
  for (const name of fs.existsSync(assetDir) ? fs.readdirSync(assetDir) : []) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { body: fs.readFileSync(path.join(assetDir, name)), type });
  }
  return { index: fs.readFileSync(indexFile, 'utf8'), assets };
}

export function consoleRoutes(app: HearthApp, dir = CONSOLE_DIST) {
  // Read once: the files are part of the package, and a page then costs no disk read.
  const dist = readDist(dir);
  const page = async (_request: unknown, reply: FastifyReply) => {
    if (dist.index === null) throw new HearthError('console_not_built', 'the console is not built: run npm run build:console');
    return reply.headers(PAGE_HEADERS).send(dist.index);
  };
  // A page's query is the page's own (a contact's timeline filters, a list's filters from a link): any is served.
  const querystring = Type.Object({}, { additionalProperties: true });
  for (const url of CONSOLE_PAGES) {
    app.get(
      url,
      { config: { auth: 'public' }, schema: { hide: true, querystring, ...(url.includes(':id') ? { params: Type.Object({ id: Type.String() }) } : {}) } },
      page,
    );
  }
  app.get(
    '/console/assets/:file',
    { config: { auth: 'public' }, schema: { hide: true, params: Type.Object({ file: Type.String() }) } },
    async (request, reply) => {
      const asset = dist.assets.get(request.params.file);
      if (!asset) throw new HearthError('not_found', `no console asset ${request.params.file}`);
      // Asset names carry a hash of their content: a new build is a new name.
      return reply
        .headers({ 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' })
        .send(asset.body);
    },
  );
}

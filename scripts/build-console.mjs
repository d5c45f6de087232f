#!/usr/bin/env node
// Builds the web console (console/src, Preact) into console/dist, which is committed and served as it is:
// `npm install && npm start` needs no build step. dist/build.json records a hash of the sources, and
// test/unit/console-build.test.ts fails when the committed build no longer matches them.
//   node scripts/build-console.mjs           build
//   node scripts/build-console.mjs --hash    print the sources' hash only
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const consoleDir = path.join(root, 'console');
const dist = path.join(consoleDir, 'dist');

/**
 * Code the console bundles from outside console/src: the server's list of token scopes, and the typed
 * client (@hearth/client, with openapi-fetch's version in its package.json). The client's generated OpenAPI
 * types are left out: they are erased from the bundle.
 */
const SHARED = ['src/core/scopes.ts', 'packages/client/package.json', 'packages/client/src'];
const TYPES_ONLY = new Set(['packages/client/src/generated/openapi.ts']);

/** What the build depends on: every source file, the code it bundles from outside, the page template, this script and the versions of the packages it bundles (Preact, uPlot). */
export function sourceHash() {
  const hash = createHash('sha256');
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else files.push(file);
    }
  };
  walk(path.join(consoleDir, 'src'));
  for (const shared of SHARED) {
    const file = path.join(root, shared);
    if (fs.statSync(file).isDirectory()) walk(file);
    else files.push(file);
  }
  files.push(path.join(consoleDir, 'index.html'), fileURLToPath(import.meta.url));
  for (const file of files.filter((file) => !TYPES_ONLY.has(path.relative(root, file).split(path.sep).join('/')))) {
    // Line endings do not change the build: a checkout with CRLF must not look stale.
    hash.update(`${path.relative(root, file).split(path.sep).join('/')}\0${fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n')}\0`);
  }
  const devDependencies = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies ?? {};
  hash.update(`preact@${devDependencies.preact}`);
  hash.update(`uplot@${devDependencies.uplot}`);
  return hash.digest('hex');
}

async function build() {
  const { build: esbuild } = await import('esbuild');
  const result = await esbuild({
    entryPoints: { app: path.join(consoleDir, 'src/main.tsx'), style: path.join(consoleDir, 'src/style.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    outdir: 'out',
    legalComments: 'none',
    logLevel: 'error',
  });
  fs.rmSync(dist, { recursive: true, force: true });
  fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
  const names = {};
  for (const file of result.outputFiles) {
    const ext = path.extname(file.path);
    const name = `${path.basename(file.path, ext)}-${createHash('sha256').update(file.contents).digest('hex').slice(0, 10)}${ext}`;
    fs.writeFileSync(path.join(dist, 'assets', name), file.contents);
    names[ext] = name;
  }
  const page = fs.readFileSync(path.join(consoleDir, 'index.html'), 'utf8').replace('%JS%', names['.js']).replace('%CSS%', names['.css']);
  fs.writeFileSync(path.join(dist, 'index.html'), page);
  fs.writeFileSync(path.join(dist, 'build.json'), `${JSON.stringify({ sourceHash: sourceHash(), assets: Object.values(names).sort() }, null, 2)}\n`);
  console.log(`console/dist: ${Object.values(names).join(', ')}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (process.argv.includes('--hash')) console.log(sourceHash());
  else await build();
}

#!/usr/bin/env node
// The `hearth` command. Hearth runs from its TypeScript sources, with no build step to remember: the first
// run after a change bundles src/ with esbuild (well under a second) into node_modules/.cache/hearth-<checkout>, keyed by
// the sources' names, sizes and modification times, and every run loads that bundle (its front at once, the rest
// as the command needs it: `--help` loads the front alone). Loading some 300
// modules one by one through a TypeScript loader cost about a second per command; the bundle loads in a
// fraction of that. Where the cache cannot be written (a read-only install), the sources run through tsx.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const entry = path.join(src, 'cli/main.ts');

/** What the bundle depends on: every source file's path, size and modification time, and this file. */
function sourceKey() {
  const hash = createHash('sha256').update(fs.readFileSync(fileURLToPath(import.meta.url)));
  const walk = (dir) => {
    for (const item of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, item.name);
      if (item.isDirectory()) walk(file);
      else {
        const stat = fs.statSync(file);
        hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
      }
    }
  };
  walk(src);
  return hash.digest('hex').slice(0, 16);
}

async function bundle(cacheDir, key) {
  const { build } = await import('esbuild');
  const dir = path.join(cacheDir, key);
  const partial = `${dir}.${process.pid}`;
  await build({
    entryPoints: [entry],
    outdir: partial,
    entryNames: 'hearth',
    outExtension: { '.js': '.mjs' },
    // What a command loads on demand (the database, the modules) goes in chunks of its own, so `--help`
    // loads the front alone.
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [
      {
        // Sources find their data files (migrations, catalogs) next to themselves: keep each file's own
        // location instead of the bundle's.
        name: 'source-location',
        setup(builder) {
          builder.onLoad({ filter: /\.ts$/ }, async (args) => {
            const text = await fs.promises.readFile(args.path, 'utf8');
            const contents = text
              .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
              .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
              .replaceAll('import.meta.filename', JSON.stringify(args.path));
            return { contents, loader: 'ts' };
          });
        },
      },
    ],
  });
  try {
    fs.renameSync(partial, dir);
  } catch {
    // Another process built the same bundle first.
    fs.rmSync(partial, { recursive: true, force: true });
  }
  // Older bundles go once no process is likely to need them: a process loads parts of its bundle when it
  // first uses them (a command's chunk), so one that started from an older bundle still reads it. Bundles
  // built over an hour ago, but the current one, are removed.
  for (const other of fs.readdirSync(cacheDir)) {
    const old = path.join(cacheDir, other);
    try {
      if (other !== key && !other.includes('.') && Date.now() - fs.statSync(old).mtimeMs > 3_600_000) fs.rmSync(old, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
  return dir;
}

async function program() {
  // Per checkout: checkouts that share node_modules (git worktrees) would otherwise remove each other's bundles.
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 8);
  const cacheDir = path.join(root, 'node_modules/.cache', `hearth-${checkout}`);
  const key = sourceKey();
  const file = path.join(cacheDir, key, 'hearth.mjs');
  if (fs.existsSync(file)) return file;
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    fs.accessSync(cacheDir, fs.constants.W_OK);
  } catch {
    return null;
  }
  return path.join(await bundle(cacheDir, key), 'hearth.mjs');
}

process.setSourceMapsEnabled(true);
const file = await program();
if (file) {
  await import(pathToFileURL(file).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}

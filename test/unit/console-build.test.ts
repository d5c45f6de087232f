import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without types
import { sourceHash } from '../../scripts/build-console.mjs';
import { CONSOLE_DIST } from '../../src/modules/console/index.ts';

/**
 * The console is served from its committed build (console/dist), so `npm install && npm start` builds
 * nothing. A change to its sources without `npm run build:console` must not go unnoticed: the build records
 * the hash of the sources it was made from.
 */
describe('the committed console build', () => {
  const build = JSON.parse(fs.readFileSync(path.join(CONSOLE_DIST, 'build.json'), 'utf8')) as { sourceHash: string; assets: string[] };

  it('was made from the current sources (else: npm run build:console, and commit console/dist)', () => {
    expect(build.sourceHash).toBe((sourceHash as () => string)());
  });

  it('holds every asset its page names, and no other', () => {
    const page = fs.readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
    const named = [...page.matchAll(/\/console\/assets\/([^"]+)"/g)].map((match) => match[1]).sort();
    expect(named).toEqual(build.assets);
    expect(fs.readdirSync(path.join(CONSOLE_DIST, 'assets')).sort()).toEqual(build.assets);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { generate, GENERATED_FILES, PACKAGE_DIR } from '../scripts/generate.ts';

/**
 * The generated files are committed (packages/client/README.md says why), so they must be what Hearth
 * generates now: a route or schema changed without `npm run generate -w @hearth/client` fails here.
 */
describe('the generated client files', () => {
  it('are what regenerating them from the app gives', async () => {
    const files = await generate(new Blob([fs.readFileSync(inject('pgliteTemplate'))]));
    for (const file of GENERATED_FILES) {
      const committed = fs.readFileSync(path.join(PACKAGE_DIR, file), 'utf8');
      // toBe on 400 KB strings prints an unreadable diff: name the file and the first line that differs.
      if (committed !== files[file]) {
        const ours = committed.split('\n');
        const theirs = files[file].split('\n');
        const line = ours.findIndex((text, index) => text !== theirs[index]);
        expect.fail(
          `packages/client/${file} is out of date (line ${line + 1}: committed ${JSON.stringify(ours[line])}, generated ${JSON.stringify(theirs[line])}); ` +
            'run `npm run generate -w @hearth/client` and commit the result',
        );
      }
    }
  });

  it('list every paged list and every filtered list of the document', async () => {
    const document = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'openapi.json'), 'utf8')) as {
      paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
    };
    const { PAGED_PATHS, FILTERED_LISTS } = await import('../src/generated/lists.ts');
    const withParameter = (name: string) =>
      Object.entries(document.paths)
        .filter(([, item]) => item.get?.parameters?.some((parameter) => parameter.name === name))
        .map(([route]) => route);
    const answeringNextCursor = Object.entries(document.paths)
      .filter(([, item]) => JSON.stringify((item.get as { responses?: object } | undefined)?.responses ?? {}).includes('"nextCursor"'))
      .map(([route]) => route);
    expect([...PAGED_PATHS].sort()).toEqual(answeringNextCursor.sort());
    expect(PAGED_PATHS).toEqual(expect.arrayContaining(withParameter('cursor')));
    expect(Object.keys(FILTERED_LISTS).sort()).toEqual(withParameter('lightFilter').sort());
    expect(PAGED_PATHS).toEqual(expect.arrayContaining(['/api/v2/contacts', '/api/v2/organizations', '/api/v2/activities', '/api/v2/admin/audit-log']));
  });
});

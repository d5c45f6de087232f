import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The file rule of docs/architecture.md ("Module files"), checked on every file under src/modules so that
// new files keep it.
const MODULES = path.resolve(import.meta.dirname, '../../src/modules');

const STEM = '[a-z0-9]+(?:-[a-z0-9]+)*';
const ROLES = ['schemas', 'service', 'repository', 'filters', 'presenters'];
const NAME = new RegExp(
  `^(?<stem>${STEM})(?:\\.(?<role>${ROLES.join('|')})|\\.(?:(?<family>v2|core)\\.)?(?<routes>routes))?\\.ts$|^${STEM}\\.(?:tsv|txt|browser\\.js)$`,
);

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

const files = filesUnder(MODULES).map((file) => path.relative(MODULES, file));

describe('module files', () => {
  it('are named <stem>.ts, <stem>.<role>.ts or <stem>[.v2|.core].routes.ts, with a kebab-case stem', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.filter((file) => !NAME.test(path.basename(file)))).toEqual([]);
  });

  it("name their routes' family: .v2 for /api/v2 alone, .core for /community/v1 alone, neither for both or none", () => {
    const wrong = files.flatMap((file) => {
      const match = NAME.exec(path.basename(file));
      if (!match?.groups?.routes) return [];
      const text = fs.readFileSync(path.join(MODULES, file), 'utf8');
      const v2 = /['`]\/api\/v2[/'`]/.test(text);
      const core = /['`]\/community\/v1[/'`]/.test(text);
      const family = v2 && !core ? 'v2' : core && !v2 ? 'core' : undefined;
      return match.groups.family === family ? [] : [`${file} (serves ${v2 && core ? 'both families' : (family ?? 'neither family')})`];
    });
    expect(wrong).toEqual([]);
  });

  it('split a subject by reads and writes with both halves named: no bare <stem>.<role> beside <stem>-read or <stem>-write', () => {
    const wrong = files.flatMap((file) => {
      const match = NAME.exec(path.basename(file));
      const role = match?.groups?.role ?? match?.groups?.routes;
      if (!match?.groups?.stem || !role || !['routes', 'service', 'repository'].includes(role)) return [];
      const dir = path.dirname(file);
      const split = files.some((other) => {
        if (path.dirname(other) !== dir) return false;
        const twin = NAME.exec(path.basename(other));
        return (
          (twin?.groups?.role ?? twin?.groups?.routes) === role &&
          [`${match.groups!.stem}-read`, `${match.groups!.stem}-write`].includes(twin?.groups?.stem ?? '')
        );
      });
      return split ? [file] : [];
    });
    expect(wrong).toEqual([]);
  });
});

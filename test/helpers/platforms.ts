import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: this file is test/helpers/platforms.ts. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let found: string | null | undefined;

/**
 * The platforms' published descriptions (shared/platforms) sit beside the checkout, not in it (they are the
 * platforms' files, under their own licences): one level up from a clone, more from a git worktree made
 * deeper. Walks up from the repository's root until a folder has shared/platforms.
 */
function platformsDir(): string | null {
  if (found !== undefined) return found;
  let dir = repoRoot;
  for (;;) {
    const candidate = path.join(dir, 'shared', 'platforms');
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return (found = candidate);
    const parent = path.dirname(dir);
    if (parent === dir) return (found = null);
    dir = parent;
  }
}

/** The absolute path of a file under shared/platforms (e.g. `discourse/openapi.json`); throws saying what is missing. */
export function platformFile(relative: string): string {
  const dir = platformsDir();
  if (!dir) throw new Error(`no shared/platforms folder above ${repoRoot}: the platforms' published descriptions are needed for the stand-ins`);
  const file = path.join(dir, relative);
  if (!existsSync(file)) throw new Error(`${relative} is not in ${dir}: the stand-in needs this platform's published description`);
  return file;
}

import fs from 'node:fs';
import path from 'node:path';

/** The setting an answer names when it refuses a folder: the operator's, not the caller's, to change. */
export const FILE_SOURCE_ROOT_SETTING = 'HEARTH_FILE_SOURCE_ROOT';

/**
 * The folder `given` names (relative to the root, or absolute), as an absolute path with every link
 * resolved, when it is a folder that lies under `root` once resolved; else null.
 *
 * Null says nothing of why: a path outside the root is refused before the file system is asked anything,
 * and within it a missing folder, a file, a link that leads out and an unreadable one are refused alike,
 * so the answer cannot tell a caller what exists where. Callers check again before each use, since links
 * under the root may change after a source is made.
 */
export async function folderUnderRoot(root: string, given: string): Promise<string | null> {
  const lexicalRoot = path.resolve(root);
  const candidate = path.resolve(lexicalRoot, given);
  if (!isWithin(lexicalRoot, candidate)) return null;
  try {
    const [realRoot, real] = await Promise.all([fs.promises.realpath(lexicalRoot), fs.promises.realpath(candidate)]);
    if (!isWithin(realRoot, real)) return null;
    return (await fs.promises.stat(real)).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/** The absolute path the root makes of a path an API caller gives, links unresolved (what is stored). */
export function pathUnderRoot(root: string, given: string): string {
  return path.resolve(root, given);
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

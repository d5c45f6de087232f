import path from 'node:path';

/** Where the embedded server listens for `hearth` commands: a Unix socket in its data directory. */
export function commandSocketPath(dataDir: string): string {
  return path.join(dataDir, 'hearth.sock');
}

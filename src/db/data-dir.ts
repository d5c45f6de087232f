import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { dataDirUnavailable, DatabaseUnavailableError } from './database-errors.ts';

/**
 * The embedded database's data directory holds everything Hearth keeps: every record, password hashes,
 * webhook secrets, and the key that signs API tokens (in its catalogs and write-ahead log). Anyone who can
 * read it can mint an admin token; anyone who can write it can change any record. So, as PostgreSQL does
 * for its own data directory, Hearth keeps it to the user who runs it: it makes the directory 0700 and
 * what is in it 0700 or 0600, and refuses to use one that belongs to another user or that other users
 * may enter.
 */
export class DataDirRefusedError extends DatabaseUnavailableError {}

/** Permission bits for group and others. */
const GROUP_OTHER = 0o077;

/** Whether this platform has Unix owners and modes to check (not Windows). */
const POSIX = process.platform !== 'win32' && typeof process.geteuid === 'function';

/**
 * Before the embedded database opens `dataDir`: owner-only creation for what this process makes from now
 * on (umask 077), the directory made (0700) when it is missing, and refused when it is another user's or
 * open to others. What an older Hearth left inside with wider modes is narrowed to the owner.
 */
export function prepareDataDir(dataDir: string): void {
  ownerOnlyUmask();
  explained(dataDir, () => {
    let stat = statOrNull(dataDir);
    if (stat === null) {
      // Missing parents too: they are made for this directory alone.
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      stat = fs.statSync(dataDir);
    }
    refuseUnsafe(dataDir, stat);
  });
  narrowInside(dataDir);
}

/**
 * The same refusal without creating anything (a command about to talk to a server through the directory's
 * socket): a missing directory passes, as no server can be listening in it.
 */
export function checkDataDir(dataDir: string): void {
  explained(dataDir, () => {
    const stat = statOrNull(dataDir);
    if (stat !== null) refuseUnsafe(dataDir, stat);
  });
}

/** A file system error (a file where the directory should be, no access to a parent) said in one line. */
function explained(dataDir: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof DataDirRefusedError) throw error;
    throw dataDirUnavailable(error, dataDir) ?? error;
  }
}

function statOrNull(dataDir: string): fs.Stats | null {
  try {
    return fs.statSync(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function refuseUnsafe(dataDir: string, stat: fs.Stats): void {
  if (!stat.isDirectory()) throw Object.assign(new Error(`${dataDir} is not a directory`), { code: 'ENOTDIR' });
  if (!POSIX) return;
  const uid = process.geteuid!();
  if (stat.uid !== uid) {
    throw new DataDirRefusedError(
      `refusing the data directory ${dataDir}: it belongs to another user (uid ${stat.uid}), not to the user Hearth runs as (uid ${uid}). ` +
        'Run Hearth as the user who owns it, or set HEARTH_DATA_DIR to a directory of this user.',
    );
  }
  if ((stat.mode & GROUP_OTHER) !== 0) {
    throw new DataDirRefusedError(
      `refusing the data directory ${dataDir}: other users may enter it (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}), and it holds every record and the key that signs tokens. ` +
        `Make it this user's alone (chmod 700 ${dataDir}) and start again.`,
    );
  }
}

/** umask 077 for the rest of the process (PostgreSQL does the same). A worker thread cannot set it. */
function ownerOnlyUmask(): void {
  if (!POSIX) return;
  try {
    // What was set before is kept as well: a stricter umask stays stricter.
    const before = process.umask(GROUP_OTHER);
    process.umask(before | GROUP_OTHER);
  } catch {
    // Not settable here (a worker thread): the directory's own mode still keeps other users out.
  }
}

/**
 * Files and directories inside that give group or others any access (an older Hearth made them so) become
 * owner-only. Each is opened without following a symbolic link and changed through its descriptor, so a
 * link put in a file's place never redirects the change; links themselves are left alone, not followed.
 */
function narrowInside(dataDir: string): void {
  if (!POSIX) return;
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        narrow(file, fs.constants.O_DIRECTORY, 0o700);
        walk(file);
      } else if (entry.isFile()) narrow(file, 0, 0o600);
    }
  };
  walk(dataDir);
}

function narrow(file: string, flags: number, mode: number): void {
  try {
    if ((fs.lstatSync(file).mode & GROUP_OTHER) === 0) return;
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | flags);
    try {
      const stat = fs.fstatSync(fd);
      if (stat.uid === process.geteuid!()) fs.fchmodSync(fd, stat.mode & 0o700 & mode);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Gone meanwhile, or unreadable: nothing to narrow here; the directory's mode keeps others out.
  }
}

/**
 * PGlite's files in a directory on disk, created owner-only. PostgreSQL asks for 0600 files and 0700
 * directories and relies on the umask for the rest (files it opens through the C library ask for 0666),
 * but the WebAssembly build has no umask: Emscripten's file system sets the mode it was given with an
 * explicit chmod after creating each file, which the process umask does not narrow. This keeps every mode
 * it sets, at creation or later, to the owner's bits.
 */
export class OwnerOnlyNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const ownerOnly = (mod: { NODEFS: unknown }) => restrictModes(mod.NODEFS as EmscriptenNodeFS);
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [ownerOnly, ...(emscriptenOpts.preRun ?? [])] } };
  }
}

/** The parts of Emscripten's NODEFS that create nodes and set their modes. */
interface EmscriptenNodeFS {
  node_ops: { mknod(parent: unknown, name: string, mode: number, dev: unknown): unknown; setattr(node: unknown, attr: { mode?: number }): void };
  stream_ops: { setattr(stream: unknown, attr: { mode?: number }): void };
}

const RESTRICTED = Symbol('hearth.ownerOnly');

function restrictModes(nodefs: EmscriptenNodeFS & { [RESTRICTED]?: true }): void {
  if (nodefs[RESTRICTED]) return;
  nodefs[RESTRICTED] = true;
  // Only the permission bits for group and others are cleared: the file type bits stay.
  const owner = (mode: number) => mode & ~GROUP_OTHER;
  const { node_ops: nodeOps, stream_ops: streamOps } = nodefs;
  const mknod = nodeOps.mknod.bind(nodeOps);
  const setNode = nodeOps.setattr.bind(nodeOps);
  const setStream = streamOps.setattr.bind(streamOps);
  nodeOps.mknod = (parent, name, mode, dev) => mknod(parent, name, owner(mode), dev);
  nodeOps.setattr = (node, attr) => setNode(node, attr.mode === undefined ? attr : { ...attr, mode: owner(attr.mode) });
  streamOps.setattr = (stream, attr) => setStream(stream, attr.mode === undefined ? attr : { ...attr, mode: owner(attr.mode) });
}

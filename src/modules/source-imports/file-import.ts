import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB, JsonValue } from '../../db/schema.ts';
import { HearthError } from '../../core/errors.ts';
import type { Writer } from '../../core/writer.ts';
import type { IngestionService } from '../ingestion/index.ts';
import type { OrganizationUpsertService } from '../organizations/index.ts';
import { readImportLine, type ImportLine } from './import-line.ts';
import * as imports from './source-import.repository.ts';
import { NO_COUNTS, type BadLine, type FileImport, type ImportCounts } from './source-import.repository.ts';

/** Lines between two saves of a file's resume point: what a crash may make the next attempt push again. */
const CHECKPOINT_LINES = 100;
/** Bad lines listed per file (all are counted): a file of garbage must not make a result of megabytes. */
export const MAX_LISTED_BAD_LINES = 100;
/** Listings of the folder per run: files that arrive while a run imports are imported by it too. */
const MAX_PASSES = 5;
/**
 * Files are opened without following a link: only the folder's own files are read, never what a link
 * placed in it leads to (outside the folder, or outside the root the folder was allowed under).
 */
const READ_NO_LINK = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0);

export interface FileImportDeps {
  db: Kysely<DB>;
  clock: Clock;
  ingestion: IngestionService;
  organizationUpserts: OrganizationUpsertService;
}

export interface ImportRun {
  communityId: number;
  sourceId: number;
  jobId: number;
  /** The job, which each imported line's push records as its writer. */
  writer: Writer;
  folder: string;
  progress(progress: JsonValue): Promise<void>;
  /** Aborted when the worker stops: the run saves its place and throws, to be run again on the next start. */
  signal: AbortSignal;
}

export interface ImportedFile {
  name: string;
  size: number;
  sha256: string;
  /** Lines read, blank ones included. */
  lines: number;
  /** Whether this run continued an import an earlier attempt had begun. */
  resumed: boolean;
  counts: ImportCounts;
  /** The first bad lines (at most MAX_LISTED_BAD_LINES; counts.badLines counts them all). */
  badLines: BadLine[];
}

export interface FolderImport {
  files: ImportedFile[];
  /** Files left alone: imported before (the same content, or the same name, size and time). */
  skippedFiles: number;
}

interface ListedFile {
  name: string;
  path: string;
  size: number;
  modifiedAt: Date;
}

export class ImportStopped extends Error {
  constructor() {
    super('the import stopped at a safe point because the worker is stopping; it continues on the next start');
  }
}

/**
 * Imports the new `*.jsonl` files of a file source's folder, in name order, each line through the same
 * service function as the core push of its type. A file's progress is saved as it goes, so a run that dies
 * continues where it was; lines pushed again after a crash update what they made (the pushes' dedup keys).
 */
export async function importFolder(deps: FileImportDeps, run: ImportRun): Promise<FolderImport> {
  const handled = new Set<string>();
  const result: FolderImport = { files: [], skippedFiles: 0 };
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const listed = (await listFolder(run.folder)).filter((file) => !handled.has(file.name));
    const quick = await imports.findImportedByName(
      deps.db,
      run.communityId,
      run.sourceId,
      listed.map((file) => file.name),
    );
    const unchanged = (file: ListedFile) =>
      quick.some((known) => known.fileName === file.name && known.size === file.size && known.modifiedAt.getTime() === file.modifiedAt.getTime());
    const candidates: (ListedFile & { sha256: string })[] = [];
    for (const file of listed) {
      handled.add(file.name);
      if (unchanged(file)) result.skippedFiles += 1;
      else candidates.push({ ...file, sha256: await hashFile(file.path) });
    }
    if (candidates.length === 0) break;
    const known = await imports.findFileImports(
      deps.db,
      run.communityId,
      run.sourceId,
      candidates.map((file) => file.sha256),
    );
    const seen = new Set<string>();
    for (const [index, file] of candidates.entries()) {
      const record = known.get(file.sha256);
      if (record?.status === 'imported' || seen.has(file.sha256)) {
        result.skippedFiles += 1;
        continue;
      }
      seen.add(file.sha256);
      if (run.signal.aborted) throw new ImportStopped();
      result.files.push(await importFile(deps, run, file, record, { pass, index, of: candidates.length }));
    }
  }
  return result;
}

async function listFolder(folder: string): Promise<ListedFile[]> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(folder, { withFileTypes: true });
  } catch (error) {
    throw new Error(`cannot read the folder "${folder}": ${(error as Error).message}`);
  }
  // A name starting with "." is a file still being written (write it so, then rename it).
  const names = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl') && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: ListedFile[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    const stat = await fs.promises.lstat(file).catch(() => null);
    // Gone (or replaced by something else) since the listing: the next run sees the folder as it then is.
    if (stat?.isFile()) files.push({ name, path: file, size: stat.size, modifiedAt: new Date(stat.mtimeMs) });
  }
  return files;
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await fs.promises.open(file, READ_NO_LINK);
  for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function importFile(
  deps: FileImportDeps,
  run: ImportRun,
  file: ListedFile & { sha256: string },
  record: FileImport | undefined,
  position: { pass: number; index: number; of: number },
): Promise<ImportedFile> {
  const key = { communityId: run.communityId, sourceId: run.sourceId, sha256: file.sha256 };
  if (!record) {
    await imports.startFileImport(deps.db, {
      ...key,
      fileName: file.name,
      size: file.size,
      modifiedAt: file.modifiedAt,
      jobId: run.jobId,
      now: deps.clock.now(),
    });
  }
  const state = {
    linesDone: record?.linesDone ?? 0,
    counts: { ...NO_COUNTS, ...record?.counts },
    badLines: [...(record?.badLines ?? [])],
  };
  const resumeAfter = state.linesDone;

  const save = async (finished: boolean) => {
    await imports.saveFileImport(deps.db, key, { ...state, jobId: run.jobId, finishedAt: finished ? deps.clock.now() : null });
    await run.progress({
      phase: 'importing',
      file: file.name,
      fileOfPass: position.index + 1,
      filesInPass: position.of,
      pass: position.pass,
      lines: state.linesDone,
      ...state.counts,
    });
  };

  // Consecutive user or activity lines are pushed together (the batch push), up to the next checkpoint.
  let pending: { type: 'user' | 'activity'; lines: { lineNumber: number; body: unknown }[] } | null = null;
  const count = (lineNumber: number, outcome: LineOutcome) => {
    if ('reason' in outcome) {
      state.counts.badLines += 1;
      if (state.badLines.length < MAX_LISTED_BAD_LINES) state.badLines.push({ line: lineNumber, reason: outcome.reason });
    } else {
      state.counts[outcome.counted] += 1;
      state.counts.warnings += outcome.warnings;
    }
  };
  const flush = async () => {
    if (!pending) return;
    const { type, lines: chunk } = pending;
    pending = null;
    const outcomes = await pushLines(
      deps,
      run.writer,
      run.sourceId,
      type,
      chunk.map((line) => line.body),
    );
    chunk.forEach((line, index) => count(line.lineNumber, outcomes[index]!));
  };

  const stream = (await fs.promises.open(file.path, READ_NO_LINK)).createReadStream({ encoding: 'utf8' });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const raw of lines) {
      lineNumber += 1;
      if (lineNumber <= resumeAfter) continue;
      const text = (lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (text) {
        const line = readImportLine(text);
        if (line.ok && line.type !== 'organization') {
          if (pending && pending.type !== line.type) await flush();
          pending ??= { type: line.type, lines: [] };
          pending.lines.push({ lineNumber, body: line.body });
        } else {
          await flush();
          count(lineNumber, await pushLine(deps, run.writer, run.sourceId, line));
        }
      }
      if (lineNumber % CHECKPOINT_LINES === 0) {
        await flush();
        state.linesDone = lineNumber;
        await save(false);
        if (run.signal.aborted) throw new ImportStopped();
      }
      // The embedded database answers without I/O, so a run of pushes would otherwise hold the event loop
      // (HTTP requests, timers) until the whole file is done.
      if (!pending) await yieldToEventLoop();
    }
    await flush();
    state.linesDone = lineNumber;
  } finally {
    lines.close();
    stream.destroy();
  }
  await save(true);
  return {
    name: file.name,
    size: file.size,
    sha256: file.sha256,
    lines: state.linesDone,
    resumed: record !== undefined,
    counts: state.counts,
    badLines: state.badLines,
  };
}

type LineOutcome = { counted: 'users' | 'activities' | 'organizations'; warnings: number } | { reason: string };

/** An organization line, or a line that could not be read, through its core push's service function. */
async function pushLine(deps: FileImportDeps, writer: Writer, sourceId: number, line: ImportLine): Promise<LineOutcome> {
  if (!line.ok) return { reason: line.reason };
  if (line.type !== 'organization') return (await pushLines(deps, writer, sourceId, line.type, [line.body]))[0]!;
  try {
    const upserted = await deps.organizationUpserts.upsertInSource(writer, sourceId, line.body);
    return { counted: 'organizations', warnings: upserted.warnings.length };
  } catch (error) {
    if (error instanceof HearthError) return { reason: error.message };
    throw error;
  }
}

/** User or activity lines through the batch push, in order. What the push refuses makes a bad line. */
async function pushLines(deps: FileImportDeps, writer: Writer, sourceId: number, type: 'user' | 'activity', bodies: unknown[]): Promise<LineOutcome[]> {
  try {
    const answers = type === 'user' ? await deps.ingestion.pushUsers(writer, sourceId, bodies) : await deps.ingestion.pushActivities(writer, sourceId, bodies);
    return answers.map((answer) =>
      answer.status === 'rejected'
        ? { reason: answer.errors.join('; ') }
        : { counted: type === 'user' ? ('users' as const) : ('activities' as const), warnings: answer.warnings.length },
    );
  } catch (error) {
    if (error instanceof HearthError) return bodies.map(() => ({ reason: error.message }));
    throw error;
  }
}

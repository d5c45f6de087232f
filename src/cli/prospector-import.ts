import type { Writer } from '../core/writer.ts';
import {
  CompanyRecordSchema,
  ContactRecordSchema,
  ProspectorImportRejected,
  type ImportCounts,
  type ImportKind,
  type NamedRecord,
  type ProspectorImportService,
} from '../modules/prospector/index.ts';
import { csvRowReader } from './csv-records.ts';
import { countLines, type ImportProgress } from './objects-import.ts';
import { csvRows, CsvUnreadable, fileIdentity, fileLines, formatOf, type FileFormat, type FilePosition, type Row } from './record-files.ts';

/** Records per chunk: one transaction (one import request's worth of work) each, well under the API's 10,000. */
export const CHUNK_RECORDS = 1_000;

/** The most faults a refusal lists; it counts the rest. */
export const MAX_FAULTS_LISTED = 100;

export interface FileImportTotals extends ImportCounts {
  records: number;
  chunks: number;
}

export type FileImportOutcome =
  /** `resumedAfterLine`: the run continued an interrupted one, after that line; totals cover the whole file. */
  | { status: 'imported'; totals: FileImportTotals; resumedAfterLine: number | null }
  /** Nothing was written by this run: `faults` lists the first faults, `faultCount` counts them all. */
  | { status: 'refused'; faults: string[]; faultCount: number; totals: FileImportTotals; committedThroughLine: number }
  /** Stopped (Ctrl-C) after the chunk through `committedThroughLine`; the same command continues. */
  | { status: 'interrupted'; totals: FileImportTotals; committedThroughLine: number };

export interface FileImportPlan {
  file: string;
  format: FileFormat;
  kind: ImportKind;
  /** Where this run starts reading, and what the runs before it imported (a resumed import). */
  start: FilePosition;
  before: FileImportTotals;
  resumed: boolean;
}

const NONE: FileImportTotals = { records: 0, added: 0, changed: 0, unchanged: 0, chunks: 0 };
const SCHEMAS = { companies: CompanyRecordSchema, contacts: ContactRecordSchema };

/** A file the command cannot read as records of a kind; nothing was written. */
export class FileRefused extends Error {}

/** The kind a record's key names: contacts are keyed by `linkedInHandle`, companies by `domain` (or `primaryWebsite`). */
function kindOfFields(fields: string[]): ImportKind | null {
  const contact = fields.includes('linkedInHandle');
  const company = fields.includes('domain') || fields.includes('primaryWebsite');
  return contact === company ? null : contact ? 'contacts' : 'companies';
}

async function csvHeader(file: string): Promise<Row<string[]> | null> {
  for await (const row of csvRows(file, { byteOffset: 0, line: 0 })) return row;
  return null;
}

/** The first record of a JSON Lines file that is a JSON object, if one is. */
async function firstJsonFields(file: string): Promise<string[] | null> {
  for await (const { value } of fileLines(file, { byteOffset: 0, line: 0 })) {
    if (value.trim() === '') continue;
    try {
      const record = JSON.parse(value) as unknown;
      return record !== null && typeof record === 'object' && !Array.isArray(record) ? Object.keys(record) : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** The file's records from `start`, each named by its line as the import API names lines (`line 4`). */
async function* namedRecords(plan: FileImportPlan): AsyncGenerator<Row<NamedRecord>> {
  if (plan.format === 'jsonl') {
    for await (const { line, endOffset, value } of fileLines(plan.file, plan.start)) {
      if (value.trim() === '') continue;
      const at = `line ${line}`;
      try {
        yield { line, endOffset, value: { at, value: JSON.parse(value) as unknown } };
      } catch (error) {
        yield { line, endOffset, value: { at, value: null, unreadable: `not JSON (${(error as Error).message})` } };
      }
    }
    return;
  }
  const header = (await csvHeader(plan.file))!;
  const reader = csvRowReader(SCHEMAS[plan.kind], header.value);
  // The plan checked the header.
  if ('faults' in reader) throw new FileRefused(reader.faults.join('; '));
  for await (const { line, endOffset, value } of csvRows(plan.file, plan.start)) {
    const at = `line ${line}`;
    const record = reader.read(value);
    yield { line, endOffset, value: 'problem' in record ? { at, value: null, unreadable: record.problem } : { at, value: record.value } };
  }
}

/** The records in chunks of `size`. */
async function* chunksOf(rows: AsyncGenerator<Row<NamedRecord>>, size: number): AsyncGenerator<Row<NamedRecord>[]> {
  let chunk: Row<NamedRecord>[] = [];
  for await (const row of rows) {
    chunk.push(row);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

/**
 * What a run of `hearth prospector import FILE` will do: the file's format, the kind of its records (given,
 * or told by the first record's key), and where to start: after the last committed chunk of an interrupted
 * run of the same file (its checkpoint), or at the top (`restart`, or none).
 */
export async function planFileImport(
  imports: ProspectorImportService,
  given: { file: string; kind: ImportKind | null; restart: boolean },
): Promise<FileImportPlan & { fileKey: string }> {
  const format = await formatOf(given.file);
  let kind = given.kind;
  let top: FilePosition = { byteOffset: 0, line: 0 };
  if (format === 'csv') {
    const header = await csvHeader(given.file);
    if (header === null) throw new FileRefused(`${given.file} holds no header row`);
    kind ??= kindOfFields(header.value.map((name) => name.trim()));
    const reader = kind === null ? null : csvRowReader(SCHEMAS[kind], header.value);
    if (reader && 'faults' in reader)
      throw new FileRefused(`${given.file} is refused: ${reader.faults.map((fault) => `line ${header.line}: ${fault}`).join('; ')}`);
    top = { byteOffset: header.endOffset, line: header.line };
  } else {
    kind ??= kindOfFields((await firstJsonFields(given.file)) ?? []);
  }
  if (kind === null) {
    throw new FileRefused(
      `cannot tell whether ${given.file} holds companies or contacts (a company has a domain or primaryWebsite, a contact a linkedInHandle): give --kind`,
    );
  }
  const fileKey = `${kind}:${format}:${await fileIdentity(given.file)}`;
  if (given.restart) await imports.clearCheckpoint(fileKey);
  const checkpoint = given.restart ? undefined : await imports.checkpoint(fileKey);
  if (!checkpoint) return { file: given.file, format, kind, fileKey, start: top, before: NONE, resumed: false };
  const { records, added, changed, unchanged, chunks } = checkpoint;
  return {
    file: given.file,
    format,
    kind,
    fileKey,
    start: { byteOffset: checkpoint.byteOffset, line: checkpoint.line },
    before: { records, added, changed, unchanged, chunks },
    resumed: true,
  };
}

/**
 * `hearth prospector import`: the file's records through the service the admin import routes use, in
 * chunks. First every record from the start point is checked, chunk by chunk, as the routes check a
 * request (and a key given twice anywhere in the file is a fault): any fault refuses the file, naming
 * them, before anything is written, as the API refuses a request whole. Then each chunk is imported in its
 * own transaction, which also moves the file's checkpoint past it, so that an interrupted run (Ctrl-C,
 * kill -9) is continued by the same command from the end of its last committed chunk.
 */
export async function importProspectorFile(
  imports: ProspectorImportService,
  plan: FileImportPlan & { fileKey: string },
  options: {
    writer: Writer;
    chunkSize?: number;
    progress?: (phase: 'checking' | 'importing') => ImportProgress | null;
    /** Asked after each chunk: true stops the run there (Ctrl-C). */
    stopRequested?: () => boolean;
  },
): Promise<FileImportOutcome> {
  const chunkSize = options.chunkSize ?? CHUNK_RECORDS;
  const stopRequested = options.stopRequested ?? (() => false);
  const totalLines = options.progress ? await countLines(plan.file) : 0;
  const totals = { ...plan.before };
  const through = plan.start.line;

  const checker = imports.checker(plan.kind);
  const faults: string[] = [];
  let faultCount = 0;
  const checking = options.progress?.('checking') ?? null;
  checking?.start(totalLines);
  try {
    for await (const chunk of chunksOf(namedRecords(plan), chunkSize)) {
      for (const fault of await checker.check(chunk.map((row) => row.value))) {
        faultCount += 1;
        if (faults.length < MAX_FAULTS_LISTED) faults.push(`${fault.at}: ${fault.message}`);
      }
      checking?.update(chunk[chunk.length - 1]!.line);
      if (stopRequested()) return { status: 'interrupted', totals, committedThroughLine: through };
    }
  } catch (error) {
    if (!(error instanceof CsvUnreadable)) throw error;
    // The file cannot be read past here: its faults so far, and this one, are all that can be named.
    faultCount += 1;
    if (faults.length < MAX_FAULTS_LISTED) faults.push(`line ${error.line}: ${error.message}`);
  } finally {
    checking?.finish();
  }
  if (faultCount) return { status: 'refused', faults, faultCount, totals, committedThroughLine: through };
  if (!plan.resumed && totals.records === 0 && !(await hasRecords(plan))) throw new FileRefused(`${plan.file} holds no records`);

  const importing = options.progress?.('importing') ?? null;
  importing?.start(totalLines);
  let committedThroughLine = through;
  try {
    for await (const chunk of chunksOf(namedRecords(plan), chunkSize)) {
      const last = chunk[chunk.length - 1]!;
      const body = { format: 'records' as const, entries: chunk.map((row) => row.value) };
      const checkpoint = { fileKey: plan.fileKey, kind: plan.kind, path: plan.file, byteOffset: last.endOffset, line: last.line };
      let counts: ImportCounts;
      try {
        counts =
          plan.kind === 'companies'
            ? await imports.importCompanies(options.writer, body, checkpoint)
            : await imports.importContacts(options.writer, body, checkpoint);
      } catch (error) {
        // The data changed since the check (a company a contact names was removed): refused as the API would.
        if (!(error instanceof ProspectorImportRejected)) throw error;
        const named = error.faults.map((fault) => `${fault.at}: ${fault.message}`);
        return { status: 'refused', faults: named.slice(0, MAX_FAULTS_LISTED), faultCount: named.length, totals, committedThroughLine };
      }
      totals.records += chunk.length;
      totals.added += counts.added;
      totals.changed += counts.changed;
      totals.unchanged += counts.unchanged;
      totals.chunks += 1;
      committedThroughLine = last.line;
      importing?.update(last.line);
      if (stopRequested()) return { status: 'interrupted', totals, committedThroughLine };
    }
  } finally {
    importing?.finish();
  }
  // Done: the next run of this file is a new import. Killed just before this, the next run resumes at the
  // end of the file and imports nothing more.
  await imports.clearCheckpoint(plan.fileKey);
  return { status: 'imported', totals, resumedAfterLine: plan.resumed ? plan.start.line : null };
}

async function hasRecords(plan: FileImportPlan): Promise<boolean> {
  for await (const _ of namedRecords(plan)) return true;
  return false;
}

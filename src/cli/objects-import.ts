import fs from 'node:fs';
import readline from 'node:readline';
import type { Writer } from '../core/writer.ts';
import { compileBodyValidator, describeValidation, findInvalidText } from '../core/validation.ts';
import { ObjectRecord } from '../modules/objects/index.ts';
import { ObjectUpsertRejected, type ObjectRecordInput, type ObjectUpsertService } from '../modules/objects/index.ts';

/** Records per upsert: one transaction each, well under the route's 1,000. */
export const IMPORT_BATCH_SIZE = 500;

export interface ImportProgress {
  /** `total` is the file's line count. */
  start(total: number): void;
  update(linesDone: number): void;
  finish(): void;
}

export interface ImportTotals {
  /** Lines read, blank ones included. */
  lines: number;
  records: number;
  created: number;
  updated: number;
  batches: number;
  /** The last line of the last batch written (0 when none was). */
  writtenThroughLine: number;
}

export type ImportOutcome =
  | { ok: true; totals: ImportTotals }
  /** Stopped: `problems` name the lines at fault; `totals` is what was written before the stop, and nothing after it was. */
  | { ok: false; totals: ImportTotals; problems: string[] };

// The same rules as the route's body: strict, never coerced (validation.ts).
const checkRecord = compileBodyValidator(ObjectRecord as object);

/** What is wrong with one line, or its record. */
export function parseLine(text: string): { record: ObjectRecordInput } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'not a JSON object' };
  const invalid = findInvalidText(value);
  if (invalid) return { problem: `field "${invalid.path}" ${invalid.problem}` };
  if (!checkRecord(value)) return { problem: describeValidation(checkRecord.errors ?? [], 'field') };
  return { record: value as ObjectRecordInput };
}

/** Newlines in the file, read in chunks (the file is never held whole), plus a last line without one. */
export async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines++;
    if (chunk.length) last = chunk[chunk.length - 1]!;
  }
  return last === 10 ? lines : lines + 1;
}

/**
 * `hearth objects import`: streams a JSONL file, one object record per line (blank lines are skipped), and
 * upserts the records in batches through the service the admin route uses. A bad line, or a batch the
 * service refuses, stops the import before that batch is written; the batches before it stay written.
 */
export async function importObjects(
  upserts: ObjectUpsertService,
  target: { writer: Writer; objectTypeId: string; file: string },
  options: { batchSize?: number; progress?: ImportProgress | null } = {},
): Promise<ImportOutcome> {
  const batchSize = options.batchSize ?? IMPORT_BATCH_SIZE;
  const progress = options.progress ?? null;
  progress?.start(await countLines(target.file));
  const totals: ImportTotals = { lines: 0, records: 0, created: 0, updated: 0, batches: 0, writtenThroughLine: 0 };
  let batch: { line: number; record: ObjectRecordInput }[] = [];

  async function flush(): Promise<string[] | null> {
    if (batch.length === 0) return null;
    try {
      const result = await upserts.upsert(target.writer, { objectTypeId: target.objectTypeId, records: batch.map((entry) => entry.record) });
      totals.records += batch.length;
      totals.created += result.created;
      totals.updated += result.updated;
      totals.batches += 1;
      totals.writtenThroughLine = batch[batch.length - 1]!.line;
      batch = [];
      return null;
    } catch (error) {
      if (!(error instanceof ObjectUpsertRejected)) throw error;
      // A fault may name another record of the batch ("also the key of records[0]"): that is a line too.
      const lineOf = (record: number) => `line ${batch[record]!.line}`;
      return error.faults.map((fault) => {
        const message = fault.message.replace(/records\[(\d+)\]/g, (_, record: string) => lineOf(Number(record)));
        return fault.record === null ? `${fault.path}: ${message}` : `${lineOf(fault.record)}: ${fault.path}: ${message}`;
      });
    }
  }

  const lines = readline.createInterface({ input: fs.createReadStream(target.file), crlfDelay: Infinity });
  try {
    for await (const raw of lines) {
      totals.lines += 1;
      const text = totals.lines === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (text.trim() !== '') {
        const parsed = parseLine(text);
        if ('problem' in parsed) return { ok: false, totals, problems: [`line ${totals.lines}: ${parsed.problem}`] };
        batch.push({ line: totals.lines, record: parsed.record });
        if (batch.length >= batchSize) {
          const problems = await flush();
          if (problems) return { ok: false, totals, problems };
        }
      }
      progress?.update(totals.lines);
    }
    const problems = await flush();
    if (problems) return { ok: false, totals, problems };
    return { ok: true, totals };
  } finally {
    lines.close();
    progress?.finish();
  }
}

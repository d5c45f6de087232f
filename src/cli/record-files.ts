import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { parse } from 'csv-parse';

/**
 * A file of records read a row at a time, never whole: JSON Lines, or CSV with a header row. Each row
 * says which line of the file it starts on (for faults) and the byte just past it, so that a later run can
 * start reading there (a resumed import).
 */

export type FileFormat = 'jsonl' | 'csv';

/** Where reading starts: a byte offset at the start of a line, and the number of lines before it. */
export interface FilePosition {
  byteOffset: number;
  line: number;
}

export interface Row<T> {
  /** The line the row starts on, from 1. */
  line: number;
  /** The byte just past the row (and its line break): where the next row starts. */
  endOffset: number;
  value: T;
}

const NEWLINE = 10;

/** `.csv` is CSV, `.jsonl` and `.ndjson` JSON Lines; otherwise a file whose first non-blank byte opens a JSON object is JSON Lines. */
export async function formatOf(file: string): Promise<FileFormat> {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  const head = (await headOf(file, 4096))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return head.startsWith('{') ? 'jsonl' : 'csv';
}

/** Up to `bytes` bytes from the start of the file. */
export async function headOf(file: string, bytes: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * What identifies a file across runs: its size and a hash of its first 64 KiB. Not its path or time, so a
 * file moved or copied is the same file; a file edited in place keeps its identity only if its size and
 * first 64 KiB stay the same.
 */
export async function fileIdentity(file: string): Promise<string> {
  const { size } = await fs.promises.stat(file);
  return `${size}:${createHash('sha256')
    .update(await headOf(file, 64 * 1024))
    .digest('hex')}`;
}

/** The lines of the file from `from`, each without its line break (`\n` or `\r\n`) and the first without a BOM. */
export async function* fileLines(file: string, from: FilePosition): AsyncGenerator<Row<string>> {
  let offset = from.byteOffset;
  let line = from.line;
  let rest: Buffer = Buffer.alloc(0);
  const text = (bytes: Buffer) => {
    let value = bytes.toString('utf8');
    if (value.endsWith('\r')) value = value.slice(0, -1);
    return offset === 0 ? value.replace(/^\uFEFF/, '') : value;
  };
  for await (const chunk of fs.createReadStream(file, { start: from.byteOffset }) as AsyncIterable<Buffer>) {
    let bytes = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE)) {
      const value = text(bytes.subarray(0, end));
      line += 1;
      offset += end + 1;
      yield { line, endOffset: offset, value };
      bytes = bytes.subarray(end + 1);
    }
    rest = Buffer.from(bytes);
  }
  if (rest.length) {
    const value = text(rest);
    yield { line: line + 1, endOffset: offset + rest.length, value };
  }
}

/**
 * Counts line breaks in what passes through, so that a byte offset the CSV parser reports can be turned
 * into a line (the parser's own line count is off for `\r\n` files). Offsets asked for only grow, so the
 * chunks before them are dropped as it goes.
 */
class LineCounter extends Transform {
  private chunks: Buffer[] = [];
  /** The stream offset of chunks[0], the position reached in it, and the line breaks before that position. */
  private chunkStart = 0;
  private position = 0;
  private breaks = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.chunks.push(chunk);
    this.push(chunk);
    done();
  }

  /** Line breaks in [0, offset) of the stream. */
  breaksBefore(offset: number): number {
    while (this.chunks.length) {
      const chunk = this.chunks[0]!;
      const stop = Math.min(offset - this.chunkStart, chunk.length);
      for (let index = chunk.indexOf(NEWLINE, this.position); index !== -1 && index < stop; index = chunk.indexOf(NEWLINE, index + 1)) this.breaks += 1;
      this.position = Math.max(this.position, stop);
      if (stop < chunk.length) break;
      this.chunks.shift();
      this.chunkStart += chunk.length;
      this.position = 0;
    }
    return this.breaks;
  }
}

/** A CSV file that cannot be read further: where, and what the parser said. */
export class CsvUnreadable extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The CSV rows of the file from `from` (which must be the start of a row), as their cells. Blank rows are
 * skipped. A row may span lines (a quoted cell with line breaks): it is named by its first. Throws
 * CsvUnreadable where the file stops being CSV (an unclosed quote).
 */
export async function* csvRows(file: string, from: FilePosition): AsyncGenerator<Row<string[]>> {
  const counter = new LineCounter();
  const parser = fs
    .createReadStream(file, { start: from.byteOffset })
    .pipe(counter)
    .pipe(parse({ bom: from.byteOffset === 0, info: true, relax_column_count: true, skip_empty_lines: true }));
  // Where the last row read ended: the row the parser cannot read starts after it.
  let readThrough = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      readThrough = info.bytes;
      // The row's last line is that of its last byte; the line breaks inside its cells lead back to its first.
      const lastLine = from.line + 1 + counter.breaksBefore(info.bytes - 1);
      const inside = record.reduce((sum, cell) => sum + cell.split('\n').length - 1, 0);
      if (record.every((cell) => cell.trim() === '')) continue;
      yield { line: lastLine - inside, endOffset: from.byteOffset + info.bytes, value: record };
    }
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    if (typeof code !== 'string' || !code.startsWith('CSV_')) throw error;
    // The parser's own line numbers are off in `\r\n` files, so its message loses them.
    throw new CsvUnreadable(from.line + 1 + counter.breaksBefore(readThrough), `not CSV (${message.replace(/ (?:on|at) line \d+$/, '')})`);
  } finally {
    parser.destroy();
  }
}

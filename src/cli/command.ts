import path from 'node:path';
import type { parseArgs } from 'node:util';
import { durationMs, DURATION_SYNTAX, isoDuration, type DurationUnit } from '../core/durations.ts';
import { parseCoreId } from '../core/ids.ts';
import { cliWriter, type Writer } from '../core/writer.ts';
import type { Database } from '../db/database.ts';
import type { Services } from '../services.ts';

/** Every option any command takes; each command's usage says which it reads. */
export const OPTIONS = {
  json: { type: 'boolean' },
  name: { type: 'string' },
  community: { type: 'string' },
  scopes: { type: 'string' },
  'expires-in': { type: 'string' },
  restart: { type: 'boolean' },
  kind: { type: 'string' },
  path: { type: 'string' },
  id: { type: 'string' },
  category: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  type: { type: 'string' },
  assoc: { type: 'string', multiple: true },
  operation: { type: 'string' },
  actor: { type: 'string' },
  token: { type: 'string' },
  entity: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  before: { type: 'string' },
  'database-url': { type: 'string' },
  organization: { type: 'string' },
  object: { type: 'string' },
  url: { type: 'string' },
  interval: { type: 'string' },
  values: { type: 'string' },
  multivalue: { type: 'string' },
  description: { type: 'string' },
  'object-type': { type: 'string' },
  writers: { type: 'string' },
  origins: { type: 'string' },
  'allow-unverified-identify': { type: 'string' },
  all: { type: 'boolean' },
  prompt: { type: 'string' },
  enabled: { type: 'string' },
  primary: { type: 'string' },
  events: { type: 'string' },
  filter: { type: 'string' },
  'filter-entity': { type: 'string' },
  'keep-previous': { type: 'string' },
  settings: { type: 'string' },
  secrets: { type: 'string' },
  role: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** A parsed command line: the command, its subcommand, the positionals after them, the options. */
export interface Invocation {
  name: string;
  sub: string | undefined;
  args: string[];
  values: Options;
  /** Standard input, read whole by the `hearth` process when an option names `-` (`--secrets -`): secrets never on the command line. */
  stdin?: string;
}

/** A command used wrongly: its message, then a pointer to the usage. */
export class UsageError extends Error {}

/**
 * Where a command's output goes and where its input comes from: this process's terminal, or, when the
 * command runs inside the embedded server for a `hearth` process (command-socket.ts), that process's,
 * over the socket. Commands use this, never `process.stdout`, `process.cwd()` or signals.
 */
export interface Terminal {
  /** Standard output; resolves once the text is taken (backpressure for long outputs). */
  out(text: string): Promise<void>;
  /** Standard error (progress, warnings). */
  err(text: string): void;
  /** Whether standard error is a terminal (a progress bar redrawn in place) or not (plain lines). */
  errIsTTY: boolean;
  /** The directory relative file names are read from. */
  cwd: string;
  /** What a first Ctrl-C does (a second ends the command at once); returns the release. */
  onInterrupt(handler: () => void): () => void;
}

/** What a subcommand gets: the services, the options, the positionals after its name, and how to answer. */
export interface CommandContext {
  services: Services;
  /** The open database (backup reads the embedded one). */
  database: Database;
  values: Options;
  args: string[];
  /** Standard input, when the command line said to read it (Invocation.stdin). */
  stdin: string | undefined;
  terminal: Terminal;
  /** A file name given on the command line, made absolute against the caller's directory. */
  file(name: string): string;
  /** `--json`: the data as one JSON line; otherwise the human text. */
  emit(data: unknown, human: string): void;
  print(line: string): void;
}

/** A command of `hearth` (its help is in help.ts, which `--help` loads alone) and its subcommands. */
export interface Command {
  name: string;
  /** Whether the command alone takes positionals (`hearth backup FILE`), rather than subcommands. */
  takesArguments?: boolean;
  /** By subcommand name; `''` is the command alone (`hearth jobs`). */
  run: Record<string, (context: CommandContext) => Promise<number>>;
}

export const print = (line: string) => process.stdout.write(`${line}\n`);

export function resolveIn(cwd: string, name: string): string {
  return path.resolve(cwd, name);
}

/** `--community com_N`, else the first community (the one `hearth init` made). */
export async function community(services: Services, given: string | undefined): Promise<number> {
  if (given !== undefined) {
    const id = parseCoreId('community', given);
    if (!(await services.communities.find(id))) throw new UsageError(`no community ${given}`);
    return id;
  }
  const first = (await services.communities.list())[0];
  if (!first) throw new UsageError('there is no community yet: run `hearth init` first');
  return first.id;
}

/** The command line's writer, in the community `--community` names (else the first). */
export async function communityWriter({ services, values }: Pick<CommandContext, 'services' | 'values'>): Promise<Writer> {
  return cliWriter(await community(services, values.community));
}

/** `--community com_N`, else null: every community. */
export async function communityOrAll(services: Services, given: string | undefined): Promise<number | null> {
  return given ? community(services, given) : null;
}

export function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${what} is required`);
  return value;
}

export function positiveInteger(value: string, what: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new UsageError(`${what} must be a positive integer`);
  return number;
}

/** An option that says yes or no: `true` or `yes`, `false` or `no`. */
export function yesNoOption(value: string, option: string): boolean {
  if (value === 'true' || value === 'yes') return true;
  if (value === 'false' || value === 'no') return false;
  throw new UsageError(`${option} takes true or false, not "${value}"`);
}

/** A length of time given to an option, in milliseconds (`bareUnit`: what a number without a unit means). */
export function durationOption(value: string, option: string, bareUnit: DurationUnit | null): number {
  const ms = durationMs(value, bareUnit);
  if (ms === null) throw new UsageError(`${option} must be ${DURATION_SYNTAX}; got "${value}"`);
  return ms;
}

/** A WHEN option: a date or date-time passes as it is; a duration back from now is passed as ISO 8601. */
export function whenOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^\d{4}-/.test(value) ? value : (isoDuration(value) ?? value);
}

/** A table with its header row; `(none)` when there is no row. */
export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  return columns([header, ...rows]);
}

/** Rows aligned in columns, no header (a list inside a description). */
export function columns(rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

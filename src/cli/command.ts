import type { parseArgs } from 'node:util';
import { parseCoreId } from '../core/ids.ts';
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
  all: { type: 'boolean' },
  prompt: { type: 'string' },
  enabled: { type: 'string' },
  primary: { type: 'string' },
  events: { type: 'string' },
  filter: { type: 'string' },
  'filter-entity': { type: 'string' },
  'keep-previous': { type: 'string' },
  role: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** A command used wrongly: its message, then a pointer to the usage. */
export class UsageError extends Error {}

/** What a subcommand gets: the services, the options, the positionals after its name, and how to answer. */
export interface CommandContext {
  services: Services;
  values: Options;
  args: string[];
  /** `--json`: the data as one JSON line; otherwise the human text. */
  emit(data: unknown, human: string): void;
  print(line: string): void;
}

/** A command of `hearth`: its usage lines (shown by `hearth --help` and `hearth <command> --help`) and its subcommands. */
export interface Command {
  name: string;
  usage: string;
  /** By subcommand name; `''` is the command alone (`hearth jobs`). */
  run: Record<string, (context: CommandContext) => Promise<number>>;
}

export const print = (line: string) => process.stdout.write(`${line}\n`);

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

export function table(rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

import { ConfigError } from '../config/config.ts';
import { HearthError } from '../core/errors.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { DatabaseUnavailableError } from '../db/database-errors.ts';
import { UsageError } from './command.ts';

/**
 * How a command that failed ends: known conditions as one line (`hearth: …`) and exit code 1, a usage
 * error with a pointer to the help, anything else (a bug) with its stack and exit code 70.
 */
export function describeFailure(error: unknown): { text: string; code: number } {
  const known =
    error instanceof DataDirLockedError ||
    error instanceof ConfigError ||
    error instanceof UsageError ||
    error instanceof HearthError ||
    error instanceof DatabaseUnavailableError ||
    (error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS');
  const text = `hearth: ${known ? (error as Error).message : ((error as Error)?.stack ?? String(error))}\n`;
  return { text: error instanceof UsageError ? `${text}Run \`hearth --help\` for usage.\n` : text, code: known ? 1 : 70 };
}

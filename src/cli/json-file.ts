import fs from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { invalidParameters } from '../core/errors.ts';
import { describeValidation, findInvalidText } from '../core/validation.ts';
import { UsageError } from './command.ts';

/** A JSON file given to a command (a definition, a committee), checked as the matching route checks its body. */
export function readJsonFile<T>(file: string, check: ValidateFunction): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidParameters(`${file} is not JSON: ${(error as Error).message}`);
  }
  const invalid = findInvalidText(value);
  if (invalid) throw invalidParameters(`${file}: "${invalid.path}" ${invalid.problem}`);
  if (!check(value)) throw invalidParameters(`${file}: ${describeValidation(check.errors ?? [], 'field')}`);
  return value as T;
}

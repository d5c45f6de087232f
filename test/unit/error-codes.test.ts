import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, HearthError, notFound } from '../../src/core/errors.ts';

const BEHAVIOUR = path.resolve(import.meta.dirname, '../../docs/behaviour.md');

/**
 * The registry is checked by `tsc` (the project includes test/): every `@ts-expect-error` below must be an
 * error, or the type check fails. Never called: only compiled.
 */
function typeChecks() {
  // @ts-expect-error: a code nobody declared
  void new HearthError('contact_missing', 'no contact');
  // @ts-expect-error: the framework's own refusal is not thrown by the domain
  void new HearthError('invalid_request', 'bad request');
  // @ts-expect-error: a code that is not a 404's
  void notFound('invalid_contact_id', 'no contact');
  // @ts-expect-error: a core reason the code does not show
  void new HearthError('invalid_cursor', 'bad cursor', { coreReason: 'invalid-request-body' });
  void new HearthError('invalid_parameters', 'bad body', { coreReason: 'invalid-request-body' });
}

/** The rows of the table in docs/behaviour.md, Errors: code, status and when, as written. */
function documentedCodes(): [string, string, string][] {
  const text = fs.readFileSync(BEHAVIOUR, 'utf8');
  const section = text.slice(text.indexOf('\n## Errors\n'), text.indexOf('\n## ', text.indexOf('\n## Errors\n') + 1));
  return section
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [code, status, when] = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      return [code!.replace(/`/g, ''), status!, when!];
    });
}

describe('the registry of error codes', () => {
  it('is typed: a code outside it does not compile (checked by tsc)', () => {
    expect(typeChecks).toBeTypeOf('function');
  });

  it('is the table of docs/behaviour.md, Errors, row for row', () => {
    const declared = Object.entries(ERROR_CODES).map(([code, entry]) => [code, String(entry.status), entry.when]);
    expect(documentedCodes()).toEqual(declared);
  });

  it('gives an error its status and its kind', () => {
    const error = new HearthError('org_not_found', 'organization o_1 not found');
    expect(error.status).toBe(404);
    expect(error.kind).toBe('not_found');
    expect(new HearthError('busy', 'busy').status).toBe(503);
  });
});

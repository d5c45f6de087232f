import { HearthError } from '../core/errors.ts';
import { parseCoreId } from '../core/ids.ts';

/** The core pushes are lenient (decisions.md §10): unknown body fields are ignored and named in `warnings`. */
export function unknownFieldWarnings(body: object, known: Iterable<string>, path = ''): string[] {
  const names = new Set(known);
  return Object.keys(body)
    .filter((key) => !names.has(key))
    .map((key) => `unknown field "${path}${key}" was ignored`);
}

/**
 * The source a core route names in its path. The body may repeat it (decisions.md §2); if it does, the two
 * must agree.
 */
export function sourceIdFromPath(pathValue: string, bodyValue: unknown, bodyField: string): number {
  const sourceId = parseCoreId('provider', pathValue);
  if (bodyValue !== undefined && bodyValue !== null && parseCoreId('provider', bodyValue as string | number) !== sourceId) {
    throw new HearthError('invalid', 'invalid_parameters', `${bodyField} ${String(bodyValue)} in the body does not match source ${sourceId} of the path`, {
      coreReason: 'invalid-request-body',
    });
  }
  return sourceId;
}

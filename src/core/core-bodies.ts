import { HearthError } from './errors.ts';
import { parseCoreId } from './ids.ts';

/**
 * The core pushes are lenient (docs/behaviour.md, Ingestion): unknown body fields are ignored and named in
 * `warnings`.
 */
export function unknownFieldWarnings(body: object, known: Iterable<string>, path = ''): string[] {
  const names = new Set(known);
  return Object.keys(body)
    .filter((key) => !names.has(key))
    .map((key) => `unknown field "${path}${key}" was ignored`);
}

/**
 * A core body may repeat the source its route names (docs/behaviour.md, Routes); if it does, the two must agree.
 * `sourceId` is the route's, already parsed.
 */
export function checkRepeatedSource(sourceId: number, bodyValue: unknown, bodyField: string): void {
  if (bodyValue === undefined || bodyValue === null) return;
  if (parseCoreId('provider', bodyValue as string | number) !== sourceId) {
    throw new HearthError('invalid_parameters', `${bodyField} ${String(bodyValue)} in the body does not match source ${sourceId} of the path`, {
      coreReason: 'invalid-request-body',
    });
  }
}

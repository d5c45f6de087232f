import type { ValidateFunction } from 'ajv';
import type { Static, TSchema } from 'typebox';
import { compileBodyValidator, describeValidation, findInvalidText } from '../../core/validation.ts';
import { ActivityPushBody, UserPushBody } from '../ingestion/index.ts';
import { SourceUpsertBody } from '../organizations/index.ts';

/**
 * One line of a file source: `{"type": "user" | "activity" | "organization", ...}`, the rest being the body
 * of the matching core push. A line is checked exactly as the push's route checks its body (the same
 * schema, validator options and text rules), so a line and a push of the same JSON get the same answer.
 */
export type ImportLine =
  | { ok: true; type: 'user'; body: Static<typeof UserPushBody> }
  | { ok: true; type: 'activity'; body: Static<typeof ActivityPushBody> }
  | { ok: true; type: 'organization'; body: Static<typeof SourceUpsertBody> }
  | { ok: false; reason: string };

export const LINE_TYPES = ['user', 'activity', 'organization'] as const;

/** The HTTP body limit (Fastify's default): a line may be as long as a push. */
export const MAX_LINE_CHARS = 1_048_576;

const validators: Record<(typeof LINE_TYPES)[number], ValidateFunction> = {
  user: compile(UserPushBody),
  activity: compile(ActivityPushBody),
  organization: compile(SourceUpsertBody),
};

function compile(schema: TSchema): ValidateFunction {
  return compileBodyValidator(schema as object);
}

export function readImportLine(text: string): ImportLine {
  if (text.length > MAX_LINE_CHARS) return { ok: false, reason: `the line is longer than ${MAX_LINE_CHARS} characters (the limit of a push)` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: notJson(error as Error) };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, reason: 'not a JSON object' };
  const { type, ...body } = parsed as Record<string, unknown>;
  if (!LINE_TYPES.includes(type as never)) {
    return { ok: false, reason: `"type" must be one of ${LINE_TYPES.map((name) => JSON.stringify(name)).join(', ')}` };
  }
  const invalid = findInvalidText(body);
  if (invalid) return { ok: false, reason: `body field "${invalid.path}" ${invalid.problem}` };
  const validate = validators[type as (typeof LINE_TYPES)[number]];
  if (!validate(body)) return { ok: false, reason: describeValidation(validate.errors ?? [], 'body') };
  return { ok: true, type, body } as ImportLine;
}

/**
 * The reason for a line that is not JSON. The parser's own message may quote the line, and a line can be
 * anything the folder holds, so only where the parser stopped is kept: a number, never the file's bytes.
 */
function notJson(error: Error): string {
  if (/end of JSON input/.test(error.message)) return 'not JSON (the line ends inside a value)';
  const position = /at position (\d+)/.exec(error.message)?.[1];
  return position === undefined ? 'not JSON' : `not JSON (invalid at character ${Number(position) + 1})`;
}

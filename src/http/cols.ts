import type { Cols } from '../core/list-query.ts';
import { parseKey } from '../core/ids.ts';
import { invalidParameters } from '../core/errors.ts';

export interface ColsOptions {
  /** The opt-in record columns of the list or get. */
  optIn: readonly string[];
  /** Whether `cf_*` and `cf_<id>` are accepted (contacts and organizations). */
  customFields?: boolean;
  /** Whether `recordCount` is accepted (lists, not gets). */
  recordCount?: boolean;
}

/**
 * Reads a comma-separated `cols`. Every name must be one the operation takes; the unknown ones are named
 * in one 400. Whether a `cf_<id>` names a custom field of the entity is for the service to check.
 */
export function parseCols(raw: string | undefined, options: ColsOptions): Cols {
  const given = (raw ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  const names = new Set<string>();
  const fieldIds = new Set<number>();
  let allFields = false;
  let recordCount = false;
  const unknown: string[] = [];
  for (const name of given) {
    if (options.optIn.includes(name)) names.add(name);
    else if (name === 'recordCount' && options.recordCount) recordCount = true;
    else if (options.customFields && name === 'cf_*') allFields = true;
    else if (options.customFields && name.startsWith('cf_') && parseKey(name.slice(3)) !== null) fieldIds.add(parseKey(name.slice(3))!);
    else unknown.push(name);
  }
  if (unknown.length) {
    const accepted = [...options.optIn, ...(options.customFields ? ['cf_*', 'cf_<id>'] : []), ...(options.recordCount ? ['recordCount'] : [])];
    throw invalidParameters(
      `unknown cols ${unknown.map((name) => JSON.stringify(name)).join(', ')}; ` +
        (accepted.length ? `accepted: ${accepted.join(', ')}` : 'this operation takes no cols'),
    );
  }
  return { names, recordCount, customFields: allFields ? 'all' : fieldIds.size ? [...fieldIds] : null };
}

/** The description of a `cols` parameter for the OpenAPI document. */
export function colsDescription(options: ColsOptions): string {
  const parts = [...options.optIn.map((name) => `\`${name}\``)];
  if (options.customFields) parts.push('`cf_*` (every custom field)', '`cf_<id>` (one custom field)');
  if (options.recordCount) parts.push('`recordCount` (adds `meta.recordCount`)');
  return `Comma-separated opt-in columns: ${parts.join(', ')}. An unknown name is a 400.`;
}

/** Lists with no opt-in record columns: only the meta column `recordCount`. */
export const META_COLS: ColsOptions = { optIn: [], recordCount: true };

import type { SortChoice } from '../core/list-query.ts';
import { invalidParameters } from '../core/errors.ts';
import { parseKey } from '../core/ids.ts';

export interface SortOptions {
  fixed: readonly string[];
  default: string;
  /** `cf_<id>` sorts by a custom field (contacts, organizations). */
  customFields?: boolean;
  /** `ls_<id>` sorts by a lead score (contacts, organizations). */
  leadScores?: boolean;
}

/** Reads `sort` (docs/behaviour.md, Sorting); an unknown value is a 400 naming the accepted ones. */
export function parseSort(raw: string | undefined, options: SortOptions): SortChoice {
  const name = raw ?? options.default;
  if (options.fixed.includes(name)) return { kind: 'fixed', name };
  const dynamic = /^(cf|ls)_(.*)$/.exec(name);
  const id = dynamic ? parseKey(dynamic[2]!) : null;
  if (dynamic && id !== null) {
    if (dynamic[1] === 'cf' && options.customFields) return { kind: 'custom_field', id, name };
    if (dynamic[1] === 'ls' && options.leadScores) return { kind: 'lead_score', id, name };
  }
  const accepted = [...options.fixed, ...(options.leadScores ? ['ls_<id>'] : []), ...(options.customFields ? ['cf_<id>'] : [])];
  throw invalidParameters(`sort ${JSON.stringify(name)} is not one of ${accepted.join(', ')}`);
}

export function sortDescription(options: SortOptions): string {
  const extra = [...(options.leadScores ? ['`ls_<id>` (a lead score)'] : []), ...(options.customFields ? ['`cf_<id>` (a custom field)'] : [])];
  return `One of ${[...options.fixed.map((name) => `\`${name}\``), ...extra].join(', ')}; default \`${options.default}\`.`;
}

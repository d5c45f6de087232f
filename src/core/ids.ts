import { HearthError } from './errors.ts';

/**
 * Internal keys are integers; the v2 family renders them with a prefix and accepts only the prefixed
 * form. The core family uses bare integers and also accepts the prefixed form (docs/behaviour.md, IDs).
 */
export const ID_PREFIXES = {
  contact: 'c_',
  organization: 'o_',
  activity: 'a_',
  segment: 's_',
  object: 'co_',
  object_type: 'cot_',
  community: 'com_',
  website_visit: 'w_',
  location: 'loc_',
  job_opening: 'job_',
  news: 'news_',
  custom_field: 'cf_',
  lead_score: 'ls_',
  tag: 'l_',
  topic: 'tp_',
  provider: 'sig_',
  industry: 'naics_',
  tech_product: 'p_',
  prospector_contact: 'pc_',
  prospector_company: 'pco_',
  audit_entry: 'au_',
  app_user: 'u_',
  feed: 'feed_',
  webhook: 'wh_',
  // A webhook delivery (its code, invalid_delivery_id, predates connectors' deliveries, which have no public ID).
  delivery: 'whd_',
  merge_suggestion: 'ms_',
} as const;

export type IdEntity = keyof typeof ID_PREFIXES;

/** A 400 `invalid_<entity>_id` naming the ID; every entity's code is in the registry of codes, or this does not compile. */
const invalidId = (entity: IdEntity, value: string, expected: string) =>
  new HearthError(`invalid_${entity}_id`, `"${value}" is not a valid ${entity.replace(/_/g, ' ')} ID (expected ${expected})`, {
    invalidIds: [value],
  });

// Larger numbers cannot be keys: they would lose precision as JavaScript numbers.
const MAX_KEY = Number.MAX_SAFE_INTEGER;

export function formatId(entity: IdEntity, key: number): string {
  return ID_PREFIXES[entity] + key;
}

export function parseKey(digits: string): number | null {
  if (!/^[0-9]{1,16}$/.test(digits)) return null;
  const key = Number(digits);
  return key <= MAX_KEY ? key : null;
}

/** Parses a prefixed v2 ID; anything else is a 400 `invalid_<entity>_id`. */
export function parseId(entity: IdEntity, value: string): number {
  const prefix = ID_PREFIXES[entity];
  const key = value.startsWith(prefix) ? parseKey(value.slice(prefix.length)) : null;
  if (key === null) throw invalidId(entity, value, `${prefix}<number>`);
  return key;
}

/** Parses a core-family ID: a bare integer, or the prefixed form. */
export function parseCoreId(entity: IdEntity, value: string | number): number {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
    throw invalidId(entity, String(value), 'an integer');
  }
  const prefix = ID_PREFIXES[entity];
  const key = parseKey(value.startsWith(prefix) ? value.slice(prefix.length) : value);
  if (key === null) throw invalidId(entity, value, `an integer or ${prefix}<number>`);
  return key;
}

/** `parseId` for an optional parameter: undefined stays undefined. */
export function parseOptionalId(entity: IdEntity, value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseId(entity, value);
}

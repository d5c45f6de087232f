import { parseDuration, subtractDuration, type Duration } from '../filters/date-values.ts';
import { invalidParameters } from './errors.ts';

/**
 * The one syntax for a length of time that an option or an environment variable takes: a number with a
 * unit (`500ms`, `45s`, `30m`, `1h`, `7d`, `2w`, or several: `1h30m`), or ISO 8601 (`PT1H`, `P7D`,
 * `P1DT12H`). A bare number keeps the unit the option always had (seconds for HEARTH_JOB_LEASE, minutes
 * for `feed add --interval`), so existing settings mean what they meant.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;

const SHORT = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

export const DURATION_SYNTAX = 'a duration such as 30s, 15m, 1h, 7d or ISO 8601 (PT1H, P7D)';

/** The short form's parts (`1h30m`: 1 h, 30 m); null when the text is not the short form. */
function shortParts(text: string): [number, DurationUnit][] | null {
  if (!SHORT.test(text)) return null;
  return [...text.matchAll(PART)].map((match) => [Number(match[1]), match[2] as DurationUnit]);
}

/**
 * Milliseconds, or null when the text is no duration. ISO years and months have no fixed length, so they
 * are refused here (null); `bareUnit` is the unit of a number given without one (null: a unit is required).
 */
export function durationMs(text: string, bareUnit: DurationUnit | null = null): number | null {
  const trimmed = text.trim();
  if (bareUnit !== null && /^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * UNIT_MS[bareUnit]);
  const parts = shortParts(trimmed);
  if (parts) return Math.round(parts.reduce((sum, [value, unit]) => sum + value * UNIT_MS[unit], 0));
  const iso = parseDuration(trimmed.toUpperCase());
  if (!iso || iso.months !== 0) return null;
  return iso.days * UNIT_MS.d + iso.millis;
}

/**
 * A duration back from a moment, as ISO 8601 (what the audit log's `since` takes, calendar-aware): the
 * short form rewritten (`7d` → `P7D`, `1h30m` → `PT1H30M`), ISO kept as it is; null for anything else.
 */
export function isoDuration(text: string): string | null {
  const trimmed = text.trim();
  if (parseDuration(trimmed.toUpperCase())) return trimmed.toUpperCase();
  const parts = shortParts(trimmed);
  if (!parts || parts.some(([value]) => !Number.isInteger(value))) {
    // A fraction (1.5h) is written as seconds, which ISO takes with a fraction.
    const ms = parts ? durationMs(trimmed) : null;
    return ms === null ? null : `PT${ms / 1000}S`;
  }
  const sum = (units: DurationUnit[]) => parts.filter(([, unit]) => units.includes(unit)).reduce((total, [value, unit]) => total + value * UNIT_MS[unit], 0);
  const days = sum(['w', 'd']) / UNIT_MS.d;
  const time: Duration['millis'] = sum(['h', 'm', 's', 'ms']);
  const hours = Math.floor(time / UNIT_MS.h);
  const minutes = Math.floor((time % UNIT_MS.h) / UNIT_MS.m);
  const seconds = (time % UNIT_MS.m) / 1000;
  const clock = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  if (!days && !clock) return 'PT0S';
  return `P${days ? `${days}D` : ''}${clock ? `T${clock}` : ''}`;
}

/** A length of time for people: `90 s`, `15 min`, `2 h`, `7 d` (whole units only, else the smaller one). */
export function describeMs(ms: number): string {
  for (const [size, name] of [
    [UNIT_MS.d, 'd'],
    [UNIT_MS.h, 'h'],
    [UNIT_MS.m, 'min'],
    [UNIT_MS.s, 's'],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}`;
  }
  return `${ms} ms`;
}

/**
 * A point in time as the audit log's filters and the prunes take it: an ISO 8601 duration back from `now`
 * (`P7D`, `PT1H`; the CLI rewrites `7d` with isoDuration), a date, or a date-time with its offset (without
 * one, "10:00" would mean whatever zone the server runs in). Anything else is refused, naming `name`.
 */
export function pointInTime(name: string, value: string, now: Date): Date {
  const duration = parseDuration(value);
  if (duration) return subtractDuration(now, duration);
  const dateTime = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2}))?$/.test(value) ? new Date(value) : null;
  if (dateTime && !Number.isNaN(dateTime.getTime())) return dateTime;
  throw invalidParameters(
    `${name} must be an ISO 8601 date, date-time with offset (2026-11-01T09:00:00Z) or duration back from now (P7D, PT1H); got "${value}"`,
  );
}

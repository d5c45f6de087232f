/**
 * The values of a dateRangeFilter: ISO 8601 durations back from now, and date or date-time bounds. Pure;
 * each parser answers null (or a reason) for anything it does not take, and never throws.
 */

/** An ISO 8601 duration, `PnYnMnWnDTnHnMnS`, split as PostgreSQL applies an interval: months, days, time. */
export interface Duration {
  months: number;
  days: number;
  /** Hours, minutes and seconds, in milliseconds. */
  millis: number;
}

// Each component is an integer of at most 9 digits; seconds may have a fraction (up to milliseconds).
const DURATION = /^P(?:(\d{1,9})Y)?(?:(\d{1,9})M)?(?:(\d{1,9})W)?(?:(\d{1,9})D)?(?:T(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,9})(?:[.,](\d{1,3}))?S)?)?$/;

export function parseDuration(text: string): Duration | null {
  const match = DURATION.exec(text);
  if (!match) return null;
  const [, years, months, weeks, days, hours, minutes, seconds, fraction] = match;
  // At least one component, and a T only with a time component after it.
  if (![years, months, weeks, days, hours, minutes, seconds].some((part) => part !== undefined)) return null;
  if (text.includes('T') && hours === undefined && minutes === undefined && seconds === undefined) return null;
  const n = (part: string | undefined) => (part === undefined ? 0 : Number(part));
  return {
    months: n(years) * 12 + n(months),
    days: n(weeks) * 7 + n(days),
    millis: ((n(hours) * 60 + n(minutes)) * 60 + n(seconds)) * 1000 + (fraction === undefined ? 0 : Number(fraction.padEnd(3, '0'))),
  };
}

/** The earliest instant a range reaches back to: the start of year 1 (PostgreSQL has no year 0). */
export const EARLIEST = new Date(Date.UTC(1, 0, 1));
EARLIEST.setUTCFullYear(1);

/**
 * `now` minus the duration, as PostgreSQL subtracts an interval: months first (the day kept, or clamped
 * to the end of a shorter month: March 31 minus one month is February 29 in a leap year), then days, then
 * the time. A duration that reaches before year 1 stops there.
 */
export function subtractDuration(now: Date, duration: Duration): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - duration.months;
  const targetYear = year + Math.floor(month / 12);
  if (targetYear < 1) return new Date(EARLIEST);
  const targetMonth = ((month % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(2000, targetMonth + 1, 0)).getUTCDate() - (targetMonth === 1 && !isLeap(targetYear) ? 1 : 0);
  const result = new Date(now);
  result.setUTCFullYear(targetYear, targetMonth, Math.min(now.getUTCDate(), lastDay));
  const time = result.getTime() - duration.days * 86_400_000 - duration.millis;
  return time < EARLIEST.getTime() ? new Date(EARLIEST) : new Date(time);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** A bound of a dateRangeFilter. */
export interface DateBound {
  /** The instant as PostgreSQL reads it, with its offset: `2024-03-01T10:00:00.5+01:00` (UTC when none was given). */
  timestamp: string;
  /** The calendar date as written, `YYYY-MM-DD` (for date-valued fields). */
  date: string;
  /** Whether only a date was given: it then covers that whole day (UTC). */
  dateOnly: boolean;
}

// YYYY-MM-DD, optionally followed by a time (T or a space) with optional seconds, fraction and offset.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** Parses `YYYY-MM-DD` or an ISO 8601 date-time (offset optional: UTC when absent); null when invalid. */
export function parseDateBound(text: string): DateBound | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, offset] = match as unknown as [string, string, string, string, string?, string?, string?, string?, string?];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  const lastDay = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (day > lastDay) return null;
  const date = `${y}-${mo}-${d}`;
  if (h === undefined) return { timestamp: `${date}T00:00:00Z`, date, dateOnly: true };
  if (Number(h) > 23 || Number(mi) > 59 || (s !== undefined && Number(s) > 59)) return null;
  let zone = 'Z';
  if (offset !== undefined && offset.toUpperCase() !== 'Z') {
    const digits = offset.replace(':', '');
    const hours = Number(digits.slice(1, 3));
    const minutes = digits.length > 3 ? Number(digits.slice(3, 5)) : 0;
    if (hours > 14 || minutes > 59) return null;
    zone = `${digits[0]}${digits.slice(1, 3)}:${String(minutes).padStart(2, '0')}`;
  }
  const seconds = `${s ?? '00'}${fraction === undefined ? '' : `.${fraction}`}`;
  return { timestamp: `${date}T${h}:${mi}:${seconds}${zone}`, date, dateOnly: false };
}

/** The UTC calendar date of an instant, `YYYY-MM-DD`. */
export function utcDate(instant: Date): string {
  const year = instant.getUTCFullYear();
  return `${String(year).padStart(4, '0')}-${String(instant.getUTCMonth() + 1).padStart(2, '0')}-${String(instant.getUTCDate()).padStart(2, '0')}`;
}

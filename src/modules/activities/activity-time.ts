/**
 * The `timestamp` of a pushed activity (docs/behaviour.md, Ingestion: ISO 8601 and the RFC 2822/1123 forms
 * real clients send; absent means now).
 *
 * Every accepted form is parsed explicitly, field by field; `Date.parse` is never asked to guess.
 *
 * ISO 8601 / RFC 3339 (extended or basic format, `T`, `t` or one space between date and time):
 *   2024-05-01T10:30:00Z          2024-05-01T10:30:00.123456+02:00   2024-05-01T10:30:00+0200
 *   2024-05-01T10:30:00+02        2024-05-01T10:30 (seconds omitted)  20240501T103000Z
 *   2024-05-01T10:30:00           (no offset: read as UTC)            2024-05-01 (midnight UTC)
 *   Fractional seconds may have any number of digits; they are truncated to milliseconds.
 *
 * RFC 2822 / RFC 1123 (HTTP dates, email headers, RSS):
 *   Tue, 15 Nov 1994 08:12:31 GMT     Tue, 15 Nov 1994 08:12:31 +0100    15 Nov 1994 08:12 -0800 (PST)
 *   Zones: ±hhmm, UT, UTC, GMT, Z, and the obsolete EST EDT CST CDT MST MDT PST PDT; no zone reads as UTC.
 *   Two-digit years: 00-49 are 2000-2049, 50-99 are 1950-1999; three-digit years add 1900 (RFC 2822, section 4.3).
 *   Weekday and month names are case-insensitive; a weekday must match the date.
 *
 * Seconds of 60 (a leap second, RFC 3339) are accepted when the minute is 59 and roll into the next minute.
 * Refused: anything that is not a string, empty text, any other shape, impossible fields (2024-02-30,
 * 25:00, hour 24) and instants before 1970-01-01T00:00:00Z. A time more than 24 hours after `now` is
 * accepted as given (scheduled events, skewed clocks) with a warning saying so.
 */

export type ParsedTime = { ok: true; date: Date; warning?: string } | { ok: false; reason: string };

/** How far ahead of the server's clock a timestamp may be before it is worth a warning (skew, time zones). */
const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
/** Longer input than this cannot be any accepted form (the longest is an RFC 2822 date with a comment). */
const MAX_LENGTH = 200;

const FORMS_HINT = 'expected ISO 8601 like "2024-05-01T10:30:00Z" or RFC 2822 like "Wed, 01 May 2024 10:30:00 GMT"';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** RFC 2822 zone names (section 4.3), in minutes east of UTC. */
const NAMED_ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  est: -5 * 60,
  edt: -4 * 60,
  cst: -6 * 60,
  cdt: -5 * 60,
  mst: -7 * 60,
  mdt: -6 * 60,
  pst: -8 * 60,
  pdt: -7 * 60,
};

// ISO 8601 extended format: date, then optionally a time with optional seconds, fraction and offset.
const ISO_EXTENDED = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;
// ISO 8601 basic format: 20240501T103000Z, 20240501T103000.5+0200, 20240501T1030.
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(\d{2})?)?$/;
// RFC 2822 date-time: [weekday ","] day month year hour ":" minute [":" second] [zone] [comment].
const RFC_2822 =
  /^(?:([A-Za-z]{3})\s*,\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{2,4})\s+(\d{2}):(\d{2})(?::(\d{2}))?(?:\s+(?:([+-])(\d{2})(\d{2})|([A-Za-z]{1,3})))?(?:\s*\([^()]*\))?$/;

interface Fields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Minutes east of UTC. */
  offset: number;
}

const fail = (reason: string): ParsedTime => ({ ok: false, reason });

export function parseActivityTimestamp(raw: unknown, now: Date): ParsedTime {
  if (raw === undefined || raw === null) return { ok: true, date: new Date(now.getTime()) };
  if (typeof raw !== 'string') {
    const kind = Array.isArray(raw) ? 'array' : typeof raw;
    return fail(`must be a date-time string, not ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}; ${FORMS_HINT}`);
  }
  const text = raw.trim();
  if (text === '') return fail(`is empty; ${FORMS_HINT}`);
  if (text.length > MAX_LENGTH) return fail(`is too long to be a date-time; ${FORMS_HINT}`);

  const fields = parseIso(text) ?? parseRfc2822(text);
  if (fields === null) return fail(`is not a recognized date-time; ${FORMS_HINT}`);
  if (typeof fields === 'string') return fail(fields);
  return toInstant(fields, now);
}

function parseIso(text: string): Fields | string | null {
  const match = ISO_EXTENDED.exec(text) ?? ISO_BASIC.exec(text);
  if (!match) return null;
  // Group 8 is Z: like no offset at all, it means UTC.
  const [, year, month, day, hour, minute, second, fraction, , sign, offsetHours, offsetMinutes] = match;
  let offset = 0;
  if (sign !== undefined) {
    const invalid = checkOffset(Number(offsetHours), Number(offsetMinutes ?? 0));
    if (invalid) return invalid;
    offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? 0));
  }
  return {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
    millisecond: fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0')),
    offset,
  };
}

function parseRfc2822(text: string): Fields | string | null {
  const match = RFC_2822.exec(text);
  if (!match) return null;
  const [, weekday, day, monthName, yearText, hour, minute, second, sign, offsetHours, offsetMinutes, zoneName] = match;

  const month = MONTHS.indexOf(monthName!.toLowerCase()) + 1;
  if (month === 0) return `has an unknown month name "${monthName}"; use Jan, Feb, … Dec`;

  // RFC 2822, section 4.3: a two-digit year below 50 is 20xx, otherwise 19xx; a three-digit year adds 1900.
  let year = Number(yearText);
  if (yearText!.length === 2) year += year < 50 ? 2000 : 1900;
  else if (yearText!.length === 3) year += 1900;

  let offset = 0;
  if (sign !== undefined) {
    const invalid = checkOffset(Number(offsetHours), Number(offsetMinutes));
    if (invalid) return invalid;
    offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  } else if (zoneName !== undefined) {
    const named = NAMED_ZONES[zoneName.toLowerCase()];
    if (named === undefined) {
      return `has an unknown time zone "${zoneName}"; use an offset like +0100, or UT, GMT, EST, EDT, CST, CDT, MST, MDT, PST, PDT`;
    }
    offset = named;
  }

  const fields: Fields = {
    year,
    month,
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
    millisecond: 0,
    offset,
  };

  if (weekday !== undefined) {
    const given = WEEKDAYS.indexOf(weekday.toLowerCase());
    if (given === -1) return `has an unknown weekday "${weekday}"; use Mon, Tue, … Sun`;
    const invalid = checkFields(fields);
    if (invalid) return invalid;
    // The weekday belongs to the date as written (in its own zone), not to the UTC instant.
    const written = new Date(0);
    written.setUTCFullYear(fields.year, fields.month - 1, fields.day);
    const actualDay = written.getUTCDay();
    if (actualDay !== given) {
      return `says ${WEEKDAY_NAMES[given]} but ${fields.day} ${MONTH_NAMES[fields.month - 1]} ${fields.year} is a ${WEEKDAY_NAMES[actualDay]}`;
    }
  }
  return fields;
}

function checkOffset(hours: number, minutes: number): string | null {
  if (hours > 23 || minutes > 59) {
    return `has an impossible time zone offset ${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
  }
  return null;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function checkFields(f: Fields): string | null {
  if (f.month < 1 || f.month > 12) return `has an impossible month ${f.month} (months are 01 to 12)`;
  const days = daysInMonth(f.year, f.month);
  if (f.day < 1 || f.day > days) {
    return `has an impossible date: ${MONTH_NAMES[f.month - 1]} ${f.year} has no day ${f.day} (it has ${days} days)`;
  }
  if (f.hour > 23) return `has an impossible hour ${f.hour} (hours are 00 to 23)`;
  if (f.minute > 59) return `has an impossible minute ${f.minute} (minutes are 00 to 59)`;
  if (f.second > 60 || (f.second === 60 && f.minute !== 59)) {
    return `has an impossible second ${f.second} (seconds are 00 to 59, or 60 for a leap second at minute 59)`;
  }
  return null;
}

function toInstant(f: Fields, now: Date): ParsedTime {
  const invalid = checkFields(f);
  if (invalid) return fail(invalid);
  if (f.year < 1969) return fail(`is in ${f.year}; dates before 1970 are not accepted`);

  // Date.UTC is exact here: the year is at least 1969, so no two-digit-year mapping applies, and a leap
  // second (60) rolls over into the next minute.
  const ms = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, f.millisecond) - f.offset * 60_000;
  if (ms < 0) return fail('is before 1970-01-01T00:00:00Z; dates before 1970 are not accepted');
  const date = new Date(ms);
  if (ms > now.getTime() + MAX_FUTURE_MS) {
    const warning = `is ${date.toISOString()}, more than a day after the current time ${now.toISOString()}; stored as given, the activity counts in no activity window until then`;
    return { ok: true, date, warning };
  }
  return { ok: true, date };
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseActivityTimestamp, type ParsedTime } from '../../src/modules/activities/activity-time.ts';

const NOW = new Date('2026-01-15T12:00:00.000Z');

function accepted(raw: unknown, now: Date = NOW): string {
  const result = parseActivityTimestamp(raw, now);
  if (!result.ok) throw new Error(`${JSON.stringify(raw)} was refused: ${result.reason}`);
  return result.date.toISOString();
}

function refused(raw: unknown, now: Date = NOW): string {
  const result = parseActivityTimestamp(raw, now);
  if (result.ok) throw new Error(`${JSON.stringify(raw)} was accepted as ${result.date.toISOString()}`);
  expect(result.reason).toEqual(expect.any(String));
  expect(result.reason.length).toBeGreaterThan(10);
  return result.reason;
}

describe('parseActivityTimestamp', () => {
  describe('absent', () => {
    it.each([undefined, null])('%s means now', (raw) => {
      const result = parseActivityTimestamp(raw, NOW);
      expect(result).toEqual({ ok: true, date: NOW });
      // A copy: the caller's clock value is never handed out to be mutated.
      expect((result as { date: Date }).date).not.toBe(NOW);
    });
  });

  describe('ISO 8601 / RFC 3339', () => {
    it.each([
      ['2024-05-01T10:30:00Z', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01t10:30:00z', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01 10:30:00Z', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01T10:30:00+00:00', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01T10:30:00-00:00', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01T10:30:00+02:00', '2024-05-01T08:30:00.000Z'],
      ['2024-05-01T10:30:00-05:30', '2024-05-01T16:00:00.000Z'],
      ['2024-05-01T10:30:00+05:45', '2024-05-01T04:45:00.000Z'],
      ['2024-05-01T10:30:00+0200', '2024-05-01T08:30:00.000Z'],
      ['2024-05-01T10:30:00+02', '2024-05-01T08:30:00.000Z'],
      ['2024-05-01T23:30:00-01:00', '2024-05-02T00:30:00.000Z'],
      ['2024-01-01T00:30:00+01:00', '2023-12-31T23:30:00.000Z'],
      // Without an offset: UTC.
      ['2024-05-01T10:30:00', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01 10:30:00', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01T10:30', '2024-05-01T10:30:00.000Z'],
      ['2024-05-01T10:30+02:00', '2024-05-01T08:30:00.000Z'],
      ['2024-05-01', '2024-05-01T00:00:00.000Z'],
      // Fractional seconds, truncated to milliseconds.
      ['2024-05-01T10:30:00.5Z', '2024-05-01T10:30:00.500Z'],
      ['2024-05-01T10:30:00.12Z', '2024-05-01T10:30:00.120Z'],
      ['2024-05-01T10:30:00.123Z', '2024-05-01T10:30:00.123Z'],
      ['2024-05-01T10:30:00.123456Z', '2024-05-01T10:30:00.123Z'],
      ['2024-05-01T10:30:00.999999999+01:00', '2024-05-01T09:30:00.999Z'],
      ['2024-05-01T10:30:00,25Z', '2024-05-01T10:30:00.250Z'],
      ['2024-05-01T10:30:00.123456', '2024-05-01T10:30:00.123Z'],
      // Basic format.
      ['20240501T103000Z', '2024-05-01T10:30:00.000Z'],
      ['20240501T103000+0200', '2024-05-01T08:30:00.000Z'],
      ['20240501T103000.250Z', '2024-05-01T10:30:00.250Z'],
      ['20240501T1030', '2024-05-01T10:30:00.000Z'],
      // Leap day, leap second, surrounding spaces, the bounds.
      ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
      ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
      ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
      ['  2024-05-01T10:30:00Z \n', '2024-05-01T10:30:00.000Z'],
      ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
      ['1969-12-31T23:30:00-01:00', '1970-01-01T00:30:00.000Z'],
      ['2026-01-16T12:00:00Z', '2026-01-16T12:00:00.000Z'],
      ['2026-01-16T13:00:00+01:00', '2026-01-16T12:00:00.000Z'],
    ])('%j is %s', (raw, expected) => {
      expect(accepted(raw)).toBe(expected);
    });
  });

  describe('RFC 2822 / RFC 1123', () => {
    it.each([
      ['Tue, 15 Nov 1994 08:12:31 GMT', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 +0100', '1994-11-15T07:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 -0800', '1994-11-15T16:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 +0000', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 -0000', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 +0530', '1994-11-15T02:42:31.000Z'],
      ['15 Nov 1994 08:12:31 GMT', '1994-11-15T08:12:31.000Z'],
      ['15 Nov 1994 08:12:31 +0100', '1994-11-15T07:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 UT', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 UTC', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 Z', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12 GMT', '1994-11-15T08:12:00.000Z'],
      ['Tue, 15 Nov 1994 08:12:31', '1994-11-15T08:12:31.000Z'],
      ['Sat, 5 Nov 1994 08:12:31 GMT', '1994-11-05T08:12:31.000Z'],
      ['Tue,15 Nov 1994 08:12:31 GMT', '1994-11-15T08:12:31.000Z'],
      ['tue, 15 nov 1994 08:12:31 gmt', '1994-11-15T08:12:31.000Z'],
      ['TUE, 15 NOV 1994 08:12:31 GMT', '1994-11-15T08:12:31.000Z'],
      ['Tue,  15  Nov  1994  08:12:31  GMT', '1994-11-15T08:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 -0800 (PST)', '1994-11-15T16:12:31.000Z'],
      ['Thu, 29 Feb 2024 23:59:59 GMT', '2024-02-29T23:59:59.000Z'],
      ['Wed, 01 May 2024 10:30:00 GMT', '2024-05-01T10:30:00.000Z'],
      // Obsolete US zone names (RFC 2822, section 4.3).
      ['Tue, 15 Nov 1994 08:12:31 EST', '1994-11-15T13:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 EDT', '1994-11-15T12:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 CST', '1994-11-15T14:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 CDT', '1994-11-15T13:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 MST', '1994-11-15T15:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 MDT', '1994-11-15T14:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 PST', '1994-11-15T16:12:31.000Z'],
      ['Tue, 15 Nov 1994 08:12:31 PDT', '1994-11-15T15:12:31.000Z'],
      // Two-digit years: 00-49 are 20xx, 50-99 are 19xx; three digits add 1900.
      ['Tue, 15 Nov 94 08:12:31 GMT', '1994-11-15T08:12:31.000Z'],
      ['Wed, 01 May 24 10:30:00 GMT', '2024-05-01T10:30:00.000Z'],
      ['01 Jan 00 00:00:00 GMT', '2000-01-01T00:00:00.000Z'],
      ['31 Dec 99 23:59:59 GMT', '1999-12-31T23:59:59.000Z'],
      ['Tue, 15 Nov 094 08:12:31 GMT', '1994-11-15T08:12:31.000Z'],
      ['01 Jan 70 00:00:00 GMT', '1970-01-01T00:00:00.000Z'],
      // The weekday is checked against the date as written, not the UTC instant.
      ['Wed, 16 Nov 1994 00:30:00 +0100', '1994-11-15T23:30:00.000Z'],
    ])('%j is %s', (raw, expected) => {
      expect(accepted(raw)).toBe(expected);
    });
  });

  describe('refusals', () => {
    it.each([
      'yesterday',
      'not a date',
      'now',
      '2024/05/01 10:30:00',
      '05/01/2024',
      '1 May 2024',
      'May 1, 2024 10:30:00',
      '2024-05-01T10:30:00Z+01:00',
      '2024-05-01T10:30:00 +01:00',
      '2024-05-01T10:30:00 Z',
      '2024-5-1T10:30:00Z',
      '2024-05-01T1:30:00Z',
      '2024-05-01T10',
      '2024-05-01T10:30:00.Z',
      '+002024-05-01T10:30:00Z',
      '1714559400000',
      '1714559400',
      'Tue Nov 15 1994 08:12:31 GMT+0100 (Central European Standard Time)',
      'Tuesday, 15-Nov-94 08:12:31 GMT',
      'Tue, 15 Nov 1994',
      'Tue, 15 Nov 1994 8:12:31 GMT',
      'Tue, 15 Nov 19945 08:12:31 GMT',
      '2024-05-01T10:30:00Z\u0000',
      'x'.repeat(10_000),
    ])('garbage %j', (raw) => {
      expect(refused(raw)).toMatch(/not a recognized date-time|too long/);
    });

    it.each(['', ' ', '\t\n'])('empty %j', (raw) => {
      expect(refused(raw)).toMatch(/empty/);
    });

    it.each<[unknown, RegExp]>([
      [1714559400000, /not a number/],
      [0, /not a number/],
      [Number.NaN, /not a number/],
      [true, /not a boolean/],
      [{}, /not an object/],
      [['2024-05-01T10:30:00Z'], /not an array/],
      [new Date('2024-05-01T10:30:00Z'), /not an object/],
      [10n, /not a bigint/],
    ])('non-string %s', (raw, reason) => {
      expect(refused(raw)).toMatch(reason);
    });

    it.each<[string, RegExp]>([
      ['2024-02-30T00:00:00Z', /February 2024 has no day 30 \(it has 29 days\)/],
      ['2023-02-29T00:00:00Z', /February 2023 has no day 29 \(it has 28 days\)/],
      ['2024-04-31', /April 2024 has no day 31/],
      ['2024-05-00', /May 2024 has no day 0/],
      ['2024-13-01T00:00:00Z', /impossible month 13/],
      ['2024-00-10T00:00:00Z', /impossible month 0/],
      ['2024-05-01T25:00:00Z', /impossible hour 25/],
      ['2024-05-01T25:00', /impossible hour 25/],
      ['2024-05-01T24:00:00Z', /impossible hour 24/],
      ['2024-05-01T10:60:00Z', /impossible minute 60/],
      ['2024-05-01T10:30:61Z', /impossible second 61/],
      ['2024-05-01T10:30:60Z', /impossible second 60/],
      ['2024-05-01T10:30:00+24:00', /impossible time zone offset 24:00/],
      ['2024-05-01T10:30:00+01:60', /impossible time zone offset 01:60/],
      ['20240230T103000Z', /February 2024 has no day 30/],
      ['Fri, 31 Feb 2024 10:00:00 GMT', /February 2024 has no day 31/],
      ['31 Feb 2024 10:00:00 GMT', /February 2024 has no day 31/],
      ['Tue, 15 Nov 1994 25:00:00 GMT', /impossible hour 25/],
      ['Tue, 15 Nov 1994 08:61:00 GMT', /impossible minute 61/],
      ['Tue, 15 Nov 1994 08:12:31 +2400', /impossible time zone offset/],
    ])('impossible %j', (raw, reason) => {
      expect(refused(raw)).toMatch(reason);
    });

    it.each<[string, RegExp]>([
      ['Wed, 15 Nov 1994 08:12:31 GMT', /says Wednesday but 15 November 1994 is a Tuesday/],
      ['Mon, 01 May 2024 10:30:00 GMT', /says Monday but 1 May 2024 is a Wednesday/],
      ['Tue, 16 Nov 1994 00:30:00 +0100', /says Tuesday but 16 November 1994 is a Wednesday/],
      ['Xyz, 15 Nov 1994 08:12:31 GMT', /unknown weekday "Xyz"/],
      ['Tue, 15 Foo 1994 08:12:31 GMT', /unknown month name "Foo"/],
      ['Tue, 15 Nov 1994 08:12:31 CET', /unknown time zone "CET"/],
      ['Tue, 15 Nov 1994 08:12:31 A', /unknown time zone "A"/],
    ])('RFC 2822 names %j', (raw, reason) => {
      expect(refused(raw)).toMatch(reason);
    });

    it.each([
      '1969-12-31T23:59:59Z',
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:30:00+01:00',
      '1900-01-01T00:00:00Z',
      '0000-01-01',
      '1000-01-01T00:00:00Z',
      'Wed, 31 Dec 1969 23:59:59 GMT',
      'Sun, 01 Jan 50 00:00:00 GMT',
      '01 Jan 069 00:00:00 GMT',
    ])('before 1970 %j', (raw) => {
      expect(refused(raw)).toMatch(/before 1970/);
    });

    it.each([
      '2026-01-16T12:00:00.001Z',
      '2026-01-16T12:00:01Z',
      '2026-01-16T11:00:00-02:00',
      '2030-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '01 Jan 49 00:00:00 GMT',
      'Sat, 01 Jan 2050 00:00:00 GMT',
    ])('more than a day in the future %j: accepted as given, with a warning', (raw) => {
      const result = parseActivityTimestamp(raw, NOW);
      expect(result).toMatchObject({ ok: true, warning: expect.stringMatching(/more than a day after the current time 2026-01-15T12:00:00.000Z/) });
      expect((result as { date: Date }).date.getTime()).toBeGreaterThan(NOW.getTime() + 24 * 3600 * 1000);
    });

    it('the future is measured from now', () => {
      const now = new Date('2099-06-01T00:00:00Z');
      expect(parseActivityTimestamp('2099-06-01T23:59:59Z', now)).toEqual({ ok: true, date: new Date('2099-06-01T23:59:59Z') });
      expect(parseActivityTimestamp('2099-06-02T00:00:01Z', now)).toMatchObject({ ok: true, warning: expect.stringMatching(/more than a day/) });
    });
  });

  describe('properties', () => {
    const isParsedTime = (result: ParsedTime) =>
      result.ok ? result.date instanceof Date && !Number.isNaN(result.date.getTime()) : typeof result.reason === 'string';

    it('never throws on anything', () => {
      fc.assert(
        fc.property(fc.anything(), (raw) => {
          expect(isParsedTime(parseActivityTimestamp(raw, NOW))).toBe(true);
        }),
        { numRuns: 2000 },
      );
    });

    it('never throws on strings made of date characters', () => {
      const dateLike = fc.string({
        unit: fc.constantFrom(...'0123456789-:T Z+.,()TueNovGMTESDP'.split('')),
        maxLength: 40,
      });
      fc.assert(
        fc.property(dateLike, (raw) => {
          const result = parseActivityTimestamp(raw, NOW);
          expect(isParsedTime(result)).toBe(true);
          if (result.ok) {
            expect(result.date.getTime()).toBeGreaterThanOrEqual(0);
            expect(result.date.getTime()).toBeLessThanOrEqual(NOW.getTime() + 86_400_000);
          }
        }),
        { numRuns: 5000 },
      );
    });

    const instants = fc.integer({ min: 0, max: NOW.getTime() + 86_400_000 }).map((ms) => new Date(ms));

    it('reads back toISOString exactly', () => {
      fc.assert(
        fc.property(instants, (date) => {
          expect(accepted(date.toISOString())).toBe(date.toISOString());
        }),
      );
    });

    it('reads back toUTCString (RFC 1123) to the second', () => {
      fc.assert(
        fc.property(instants, (date) => {
          const seconds = new Date(Math.floor(date.getTime() / 1000) * 1000);
          expect(accepted(date.toUTCString())).toBe(seconds.toISOString());
        }),
      );
    });

    it('reads any offset to the same instant', () => {
      const offsets = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
      fc.assert(
        fc.property(instants, offsets, (date, offset) => {
          const local = new Date(date.getTime() + offset * 60_000);
          if (local.getUTCFullYear() < 1969 || local.getUTCFullYear() > 9999) return;
          const abs = Math.abs(offset);
          const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          const written = `${local.toISOString().slice(0, -1)}${zone}`;
          expect(accepted(written)).toBe(date.toISOString());
        }),
      );
    });
  });
});

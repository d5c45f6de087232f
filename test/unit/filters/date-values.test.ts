import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARLIEST, parseDateBound, parseDuration, subtractDuration, utcDate } from '../../../src/filters/date-values.ts';

describe('parseDuration', () => {
  it.each([
    ['P7D', { months: 0, days: 7, millis: 0 }],
    ['P2W', { months: 0, days: 14, millis: 0 }],
    ['P1Y2M', { months: 14, days: 0, millis: 0 }],
    ['PT12H', { months: 0, days: 0, millis: 12 * 3_600_000 }],
    ['PT90M', { months: 0, days: 0, millis: 90 * 60_000 }],
    ['PT1.5S', { months: 0, days: 0, millis: 1500 }],
    ['PT0,25S', { months: 0, days: 0, millis: 250 }],
    ['P1Y2M3W4DT5H6M7.008S', { months: 14, days: 25, millis: ((5 * 60 + 6) * 60 + 7) * 1000 + 8 }],
    ['P0D', { months: 0, days: 0, millis: 0 }],
  ])('reads %s', (text, expected) => {
    expect(parseDuration(text)).toEqual(expected);
  });

  it.each(['', 'P', 'PT', 'P1DT', '7D', 'p7d', '-P7D', 'P-7D', 'P1.5D', 'PT1.5H', 'P7D ', ' P7D', 'P1D1Y', 'P1234567890D', 'PT1.0001S', 'P1H', 'T1H'])(
    'refuses %j',
    (text) => {
      expect(parseDuration(text)).toBeNull();
    },
  );

  it('never throws and reads every well-formed duration', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseDuration(text);
      }),
    );
    fc.assert(
      fc.property(fc.nat(1e9 - 1), fc.nat(1e9 - 1), fc.nat(1e9 - 1), (years, days, hours) => {
        expect(parseDuration(`P${years}Y${days}DT${hours}H`)).toEqual({ months: years * 12, days, millis: hours * 3_600_000 });
      }),
    );
  });
});

describe('subtractDuration', () => {
  const at = (iso: string) => new Date(iso);
  const minus = (now: string, duration: string) => subtractDuration(at(now), parseDuration(duration)!).toISOString();

  it('subtracts months first, clamping the day to the end of a shorter month, as PostgreSQL does', () => {
    expect(minus('2024-03-31T12:00:00Z', 'P1M')).toBe('2024-02-29T12:00:00.000Z');
    expect(minus('2023-03-31T12:00:00Z', 'P1M')).toBe('2023-02-28T12:00:00.000Z');
    expect(minus('2024-02-29T00:00:00Z', 'P1Y')).toBe('2023-02-28T00:00:00.000Z');
    expect(minus('2024-01-15T00:00:00Z', 'P13M')).toBe('2022-12-15T00:00:00.000Z');
    // Months, then days: March 31 − (1 month 1 day) = February 28 in 2024.
    expect(minus('2024-03-31T00:00:00Z', 'P1M1D')).toBe('2024-02-28T00:00:00.000Z');
  });

  it('subtracts days, weeks and time exactly', () => {
    expect(minus('2024-06-15T12:00:00Z', 'P7D')).toBe('2024-06-08T12:00:00.000Z');
    expect(minus('2024-06-15T12:00:00Z', 'P2W')).toBe('2024-06-01T12:00:00.000Z');
    expect(minus('2024-06-15T12:00:00Z', 'PT12H30M0.5S')).toBe('2024-06-14T23:29:59.500Z');
    expect(minus('2024-06-15T12:00:00Z', 'P0D')).toBe('2024-06-15T12:00:00.000Z');
  });

  it('stops at the start of year 1', () => {
    expect(EARLIEST.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(minus('2024-06-15T12:00:00Z', 'P999999999Y')).toBe(EARLIEST.toISOString());
    expect(minus('2024-06-15T12:00:00Z', 'P2023Y5M14DT12H')).toBe(EARLIEST.toISOString());
    expect(minus('2024-06-15T12:00:00Z', 'P999999999W')).toBe(EARLIEST.toISOString());
    expect(minus('2024-06-15T12:00:00Z', 'PT999999999H')).toBe(EARLIEST.toISOString());
  });

  it('always gives a valid instant between year 1 and now', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.record({ months: fc.nat(1e10), days: fc.nat(1e10), millis: fc.nat(1e15) }),
        (now, duration) => {
          const result = subtractDuration(now, duration);
          expect(Number.isNaN(result.getTime())).toBe(false);
          expect(result.getTime()).toBeGreaterThanOrEqual(EARLIEST.getTime());
          expect(result.getTime()).toBeLessThanOrEqual(now.getTime());
        },
      ),
    );
  });
});

describe('parseDateBound', () => {
  it.each([
    ['2024-06-15', { timestamp: '2024-06-15T00:00:00Z', date: '2024-06-15', dateOnly: true }],
    ['2024-02-29', { timestamp: '2024-02-29T00:00:00Z', date: '2024-02-29', dateOnly: true }],
    ['2024-06-15T12:30:00Z', { timestamp: '2024-06-15T12:30:00Z', date: '2024-06-15', dateOnly: false }],
    ['2024-06-15T12:30Z', { timestamp: '2024-06-15T12:30:00Z', date: '2024-06-15', dateOnly: false }],
    ['2024-06-15 12:30:05.123456', { timestamp: '2024-06-15T12:30:05.123456Z', date: '2024-06-15', dateOnly: false }],
    ['2024-06-15T12:30:05+0530', { timestamp: '2024-06-15T12:30:05+05:30', date: '2024-06-15', dateOnly: false }],
    ['2024-06-15T12:30:05-07', { timestamp: '2024-06-15T12:30:05-07:00', date: '2024-06-15', dateOnly: false }],
    ['0001-01-01', { timestamp: '0001-01-01T00:00:00Z', date: '0001-01-01', dateOnly: true }],
  ])('reads %s', (text, expected) => {
    expect(parseDateBound(text)).toEqual(expected);
  });

  it.each([
    '',
    '2024',
    '2024-6-15',
    '2023-02-29',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '0000-01-01',
    '2024-06-15T24:00:00Z',
    '2024-06-15T12:60Z',
    '2024-06-15T12:30:60Z',
    '2024-06-15T12:30:00+15:00',
    '2024-06-15T12:30:00+05:60',
    '2024-06-15T12:30:00.1234567Z',
    '2024-06-15T12',
    '15/06/2024',
    'yesterday',
    '2024-06-15Z',
    ' 2024-06-15',
  ])('refuses %j', (text) => {
    expect(parseDateBound(text)).toBeNull();
  });

  it('reads every calendar date that Date prints', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {
        const iso = date.toISOString();
        expect(parseDateBound(iso.slice(0, 10))?.date).toBe(iso.slice(0, 10));
        expect(new Date(parseDateBound(iso)!.timestamp).getTime()).toBe(date.getTime());
        expect(utcDate(date)).toBe(iso.slice(0, 10));
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../src/modules/contacts/phones.ts';

describe('normalizePhone', () => {
  it.each([
    ['+49 151 23456789', '+4915123456789', 'mobile'],
    ['+49 (0)30 1234567', '+49301234567', 'fixed_line'],
    ['+44 20 7946 0958', '+442079460958', 'fixed_line'],
    ['+44 7400 123456', '+447400123456', 'mobile'],
    ['+1 (415) 555-2671', '+14155552671', 'fixed_line_or_mobile'],
    ['+1-800-555-0199', '+18005550199', 'toll_free'],
    ['+33 6 12 34 56 78', '+33612345678', 'mobile'],
    ['+33 1 23 45 67 89', '+33123456789', 'fixed_line'],
    ['+61 2 9876 5432', '+61298765432', 'fixed_line'],
    ['+91 98765 43210', '+919876543210', 'mobile'],
    ['+81 3-1234-5678', '+81312345678', 'fixed_line'],
    ['+55 11 91234-5678', '+5511912345678', 'mobile'],
    ['+4915123456789', '+4915123456789', 'mobile'],
    ['  +49 151 23456789  ', '+4915123456789', 'mobile'],
    ['tel:+1-415-555-2671', '+14155552671', 'fixed_line_or_mobile'],
    ['0049 151 23456789', '+4915123456789', 'mobile'],
    ['+1 415 555 2671 ext. 12', '+14155552671', 'fixed_line_or_mobile'],
  ])('international %j → %j (%s), with no default country', (input, value, type) => {
    expect(normalizePhone(input)).toEqual({ value, type });
  });

  it.each([
    ['0151 23456789', 'DE', '+4915123456789', 'mobile'],
    ['030 1234567', 'DE', '+49301234567', 'fixed_line'],
    ['030 1234567', 'de', '+49301234567', 'fixed_line'],
    ['(415) 555-2671', 'US', '+14155552671', 'fixed_line_or_mobile'],
    ['415.555.2671', 'US', '+14155552671', 'fixed_line_or_mobile'],
    ['1 415 555 2671', 'US', '+14155552671', 'fixed_line_or_mobile'],
    ['020 7946 0958', 'GB', '+442079460958', 'fixed_line'],
    ['07400 123456', 'GB', '+447400123456', 'mobile'],
    ['0412 345 678', 'AU', '+61412345678', 'mobile'],
    ['06 12 34 56 78', 'FR', '+33612345678', 'mobile'],
    ['98765 43210', 'IN', '+919876543210', 'mobile'],
    ['0049 30 1234567', 'DE', '+49301234567', 'fixed_line'],
    ['0049 30 1234567', 'US', '+49301234567', 'fixed_line'],
    ['011 49 30 1234567', 'US', '+49301234567', 'fixed_line'],
    ['+44 20 7946 0958', 'DE', '+442079460958', 'fixed_line'],
  ])('national %j in %s → %j (%s)', (input, country, value, type) => {
    expect(normalizePhone(input, country)).toEqual({ value, type });
  });

  it('cannot read a national number without a default country', () => {
    expect(normalizePhone('0151 23456789')).toBeNull();
    expect(normalizePhone('(415) 555-2671')).toBeNull();
  });

  it('ignores an unknown default country', () => {
    expect(normalizePhone('0151 23456789', 'XX')).toBeNull();
    expect(normalizePhone('+49 151 23456789', 'XX')).toEqual({ value: '+4915123456789', type: 'mobile' });
    expect(normalizePhone('+49 151 23456789', 'Germany')).toEqual({ value: '+4915123456789', type: 'mobile' });
  });

  it('reads a number given as a JSON number', () => {
    expect(normalizePhone(4155552671, 'US')).toEqual({ value: '+14155552671', type: 'fixed_line_or_mobile' });
  });

  it.each([
    '',
    '   ',
    'null',
    'undefined',
    'unknown',
    'n/a',
    'N/A',
    'none',
    '-',
    '--',
    '?',
    '0',
    'call me',
    '12',
    '+1 555 555 5555',
    '+49 123',
    '+999 1234567',
    '1'.repeat(200),
  ])('junk or invalid %j gives null', (input) => {
    expect(normalizePhone(input)).toBeNull();
    expect(normalizePhone(input, 'US')).toBeNull();
  });

  it.each([null, undefined, {}, [], true, -5, 1.5, Number.NaN])('the non-string %j gives null', (input) => {
    expect(normalizePhone(input, 'US')).toBeNull();
  });

  it('refuses numbers longer than E.164 allows, even where the metadata accepts them', () => {
    expect(normalizePhone(208000000000000, 'DE')).toBeNull();
  });

  it('never throws; every result is E.164 and normalizes to itself', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.string(), fc.stringMatching(/^\+?[0-9 ()\-.]{4,20}$/)),
        fc.option(fc.constantFrom('US', 'DE', 'GB', 'FR', 'IN', 'AU', 'BR', 'JP', 'xx', '')),
        (raw, country) => {
          const phone = normalizePhone(raw, country ?? undefined);
          if (phone === null) return;
          expect(phone.value).toMatch(/^\+[1-9]\d{1,14}$/);
          expect(phone.type).toMatch(/^[a-z_]+$/);
          expect(normalizePhone(phone.value)).toEqual(phone);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

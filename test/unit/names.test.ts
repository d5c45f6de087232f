import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contactNames } from '../../src/modules/contacts/names.ts';

const JUNK = ['', '   ', 'null', 'undefined', 'unknown', 'Unknown', 'n/a', 'N/A', 'NA', 'none', 'None', '-', '--', '?', '0'];

describe('contactNames', () => {
  it('uses fullName for both fields', () => {
    expect(contactNames({ fullName: 'Ada Lovelace' })).toEqual({ fullName: 'Ada Lovelace', name: 'Ada Lovelace' });
  });

  it('uses fullName even when first and last names are given', () => {
    expect(contactNames({ fullName: 'Ada King', firstName: 'Ada', lastName: 'Lovelace' })).toEqual({ fullName: 'Ada King', name: 'Ada King' });
  });

  it('joins first and last names when fullName is absent', () => {
    expect(contactNames({ firstName: 'Ada', lastName: 'Lovelace' })).toEqual({ fullName: 'Ada Lovelace', name: 'Ada Lovelace' });
    expect(contactNames({ fullName: null, firstName: 'Ada', lastName: 'Lovelace' })).toEqual({ fullName: 'Ada Lovelace', name: 'Ada Lovelace' });
  });

  it('uses a first or last name alone', () => {
    expect(contactNames({ firstName: 'Ada' })).toEqual({ fullName: 'Ada', name: 'Ada' });
    expect(contactNames({ lastName: 'Lovelace', firstName: null })).toEqual({ fullName: 'Lovelace', name: 'Lovelace' });
  });

  it.each(JUNK)('treats the junk fullName %j as absent', (junk) => {
    expect(contactNames({ fullName: junk, firstName: 'Ada', lastName: 'Lovelace' })).toEqual({ fullName: 'Ada Lovelace', name: 'Ada Lovelace' });
  });

  it.each(JUNK)('treats the junk first or last name %j as absent', (junk) => {
    expect(contactNames({ firstName: 'Ada', lastName: junk })).toEqual({ fullName: 'Ada', name: 'Ada' });
    expect(contactNames({ firstName: junk, lastName: 'Lovelace' })).toEqual({ fullName: 'Lovelace', name: 'Lovelace' });
  });

  it('keeps "Na", a given name, while "NA" is a placeholder', () => {
    expect(contactNames({ firstName: 'Na', lastName: 'Li' })).toEqual({ fullName: 'Na Li', name: 'Na Li' });
    expect(contactNames({ firstName: 'Jo', lastName: 'NA' })).toEqual({ fullName: 'Jo', name: 'Jo' });
  });

  it('collapses inner whitespace and trims', () => {
    expect(contactNames({ fullName: '  Ada \t  Augusta\n King  ' })).toEqual({ fullName: 'Ada Augusta King', name: 'Ada Augusta King' });
    expect(contactNames({ firstName: ' Ada\u00a0 Augusta ', lastName: '  King ' })).toEqual({ fullName: 'Ada Augusta King', name: 'Ada Augusta King' });
  });

  it('ignores non-string values', () => {
    expect(contactNames({ fullName: 42, firstName: { a: 1 }, lastName: ['x'], username: true })).toEqual({ fullName: null, name: 'Unknown' });
  });

  it('keeps names in any script', () => {
    expect(contactNames({ fullName: '李娜' })).toEqual({ fullName: '李娜', name: '李娜' });
    expect(contactNames({ firstName: 'Zoë', lastName: 'Ørsted-Ñúñez' })).toEqual({ fullName: 'Zoë Ørsted-Ñúñez', name: 'Zoë Ørsted-Ñúñez' });
  });

  it('falls back to the username for name only', () => {
    expect(contactNames({ username: 'ada_l' })).toEqual({ fullName: null, name: 'ada_l' });
    expect(contactNames({ fullName: 'n/a', username: '  ada_l ', email: 'ada@acme.com' })).toEqual({ fullName: null, name: 'ada_l' });
  });

  it('then to the local part of the email, as spelled', () => {
    expect(contactNames({ email: 'Ada.Lovelace@acme.com' })).toEqual({ fullName: null, name: 'Ada.Lovelace' });
    expect(contactNames({ username: 'none', email: '"Ada" <ada+news@gmail.com>' })).toEqual({ fullName: null, name: 'ada+news' });
  });

  it('uses the GitHub login of a GitHub noreply email', () => {
    expect(contactNames({ email: '12345+Octocat@users.noreply.github.com' })).toEqual({ fullName: null, name: 'Octocat' });
  });

  it('skips junk and no-reply emails', () => {
    expect(contactNames({ email: 'noreply@acme.com' })).toEqual({ fullName: null, name: 'Unknown' });
    expect(contactNames({ email: 'n/a' })).toEqual({ fullName: null, name: 'Unknown' });
    expect(contactNames({ email: 'not an email' })).toEqual({ fullName: null, name: 'Unknown' });
  });

  it('falls back to "Unknown" when nothing is given', () => {
    expect(contactNames({})).toEqual({ fullName: null, name: 'Unknown' });
    expect(contactNames({ fullName: null, firstName: null, lastName: null, username: null, email: null })).toEqual({ fullName: null, name: 'Unknown' });
    expect(contactNames({ fullName: ' ', firstName: '-', lastName: 'null', username: 'undefined', email: '' })).toEqual({ fullName: null, name: 'Unknown' });
  });

  it('never throws; name is never empty and never has loose whitespace', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            fullName: fc.oneof(fc.string(), fc.anything()),
            firstName: fc.oneof(fc.string(), fc.anything()),
            lastName: fc.oneof(fc.string(), fc.anything()),
            username: fc.oneof(fc.string(), fc.anything()),
            email: fc.oneof(fc.constant(null), fc.string(), fc.emailAddress()),
          },
          { requiredKeys: [] },
        ),
        (input) => {
          const { fullName, name } = contactNames(input);
          expect(name.length).toBeGreaterThan(0);
          expect(name).toBe(name.trim());
          expect(name).not.toMatch(/\s{2}/);
          if (fullName !== null) expect(name).toBe(fullName);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

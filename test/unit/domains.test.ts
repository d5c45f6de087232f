import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPersonalMailDomain, registrableDomain } from '../../src/modules/organizations/domains.ts';

describe('registrableDomain', () => {
  it.each([
    ['acme.com', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['  acme.com  ', 'acme.com'],
    ['www.acme.com', 'acme.com'],
    ['eu.mail.acme.com', 'acme.com'],
    ['acme.com.', 'acme.com'],
    ['https://www.Acme.co.uk/about', 'acme.co.uk'],
    ['http://shop.acme.co.uk:8080/cart?x=1#top', 'acme.co.uk'],
    ['acme.co.uk', 'acme.co.uk'],
    ['www.acme.com.au', 'acme.com.au'],
    ['https://blog.acme.com.au/', 'acme.com.au'],
    ['acme.co.jp', 'acme.co.jp'],
    ['https://www.acme.com.br/contato', 'acme.com.br'],
    ['acme.com/about', 'acme.com'],
    ['https://user:secret@acme.com/x', 'acme.com'],
    ['acme.github.io', 'acme.github.io'],
    ['https://acme.herokuapp.com', 'acme.herokuapp.com'],
    ['bücher.de', 'bücher.de'],
    ['xn--bcher-kva.de', 'bücher.de'],
    ['https://www.BÜCHER.de/', 'bücher.de'],
  ])('%j → %j', (input, expected) => {
    expect(registrableDomain(input)).toBe(expected);
  });

  it.each([
    ['jo@acme.com', 'acme.com'],
    ['Jo@Mail.Acme.co.uk', 'acme.co.uk'],
    ['Jo Doe <jo@eu.acme.com.au>', 'acme.com.au'],
    ['mailto:jo@acme.com?subject=hi', 'acme.com'],
    ['jo.doe+x@gmail.com', 'gmail.com'],
  ])('reads the domain of the email %j', (input, expected) => {
    expect(registrableDomain(input)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    'acme',
    'localhost',
    'http://localhost:3000/',
    'app.localhost',
    '127.0.0.1',
    'http://192.168.1.10/admin',
    '[::1]',
    'http://[2001:db8::1]/',
    'jo@[10.0.0.1]',
    'acme.local',
    'acme.internal',
    'intranet.corp',
    'co.uk',
    'com',
    'github.io',
    '-acme.com',
    'acme..com',
    'n/a',
    'not a domain',
  ])('%j has no registrable domain', (input) => {
    expect(registrableDomain(input)).toBeNull();
  });

  it.each([null, undefined, 42, {}, ['acme.com']])('%j (not a string) gives null', (input) => {
    expect(registrableDomain(input)).toBeNull();
  });

  it('never throws, is lowercase, and is its own registrable domain', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.domain(), fc.webUrl(), fc.emailAddress()), (input) => {
        const domain = registrableDomain(input);
        if (domain === null) return;
        expect(domain).toBe(domain.toLowerCase());
        expect(registrableDomain(domain)).toBe(domain);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('isPersonalMailDomain', () => {
  it.each([
    'gmail.com',
    'googlemail.com',
    'outlook.com',
    'hotmail.com',
    'hotmail.co.uk',
    'live.com',
    'yahoo.com',
    'yahoo.co.uk',
    'icloud.com',
    'aol.com',
    'gmx.de',
    'web.de',
    'protonmail.com',
    'proton.me',
    'qq.com',
    'privaterelay.appleid.com',
  ])('the free provider %j is personal', (domain) => {
    expect(isPersonalMailDomain(domain)).toBe(true);
  });

  it.each(['mailinator.com', 'guerrillamail.com', '10minutemail.com', 'yopmail.com', 'trashmail.com', 'eu.mailinator.com'])(
    'the disposable provider %j is personal',
    (domain) => {
      expect(isPersonalMailDomain(domain)).toBe(true);
    },
  );

  it.each([
    'acme.com',
    'mail.acme.com',
    'eu.sales.acme.com',
    'acme.co.uk',
    'acme.com.au',
    'github.com',
    'google.com',
    'microsoft.com',
    'appleid.com',
    'gmail.co.uk.acme.com',
  ])('the work domain %j is not personal', (domain) => {
    expect(isPersonalMailDomain(domain)).toBe(false);
  });

  it('takes any case, a trailing dot, an email or a URL', () => {
    expect(isPersonalMailDomain('GMAIL.COM')).toBe(true);
    expect(isPersonalMailDomain('gmail.com.')).toBe(true);
    expect(isPersonalMailDomain('jo@gmail.com')).toBe(true);
    expect(isPersonalMailDomain('Jo <jo@Yahoo.co.uk>')).toBe(true);
    expect(isPersonalMailDomain('https://www.mailinator.com/')).toBe(true);
    expect(isPersonalMailDomain('jo@acme.com')).toBe(false);
  });

  it.each(['', '   ', 'localhost', '127.0.0.1', 'n/a'])('%j is not personal', (domain) => {
    expect(isPersonalMailDomain(domain)).toBe(false);
  });

  it('agrees with registrableDomain on what makes an organization', () => {
    const work = 'jo@eu.acme.co.uk';
    expect(isPersonalMailDomain(work)).toBe(false);
    expect(registrableDomain(work)).toBe('acme.co.uk');
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.domain(), fc.emailAddress()), (input) => {
        expect(typeof isPersonalMailDomain(input)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });
});

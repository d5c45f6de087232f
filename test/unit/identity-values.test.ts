import { createHash } from 'node:crypto';
import emailAddresses from 'email-addresses';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  identityHash,
  identityKey,
  isJunkValue,
  normalizeDiscord,
  normalizeEmail,
  normalizeHandle,
  PLAIN_ADDRESS,
  type Identity,
  type Normalized,
} from '../../src/modules/identity/identity-values.ts';

/** The identity of an accepted value; fails the test with the reason otherwise. */
function accepted(result: Normalized): Identity {
  if (!result.ok) throw new Error(`expected the value to be accepted, got: ${result.reason}`);
  return result.identity;
}

/** The reason of a rejected value; fails the test otherwise. */
function rejected(result: Normalized): string {
  if (result.ok) throw new Error(`expected the value to be rejected, got ${JSON.stringify(result.identity)}`);
  expect(result.reason).toMatch(/\S/);
  return result.reason;
}

// Placeholders real clients send where they have no identifier (docs/ingestion.md, One person, one contact).
const JUNK_WORDS = [
  '',
  '   ',
  '\t\n',
  'null',
  'NULL',
  'Null',
  'undefined',
  'unknown',
  'Unknown',
  'n/a',
  'N/A',
  'na',
  'NA',
  'none',
  'None',
  '-',
  '--',
  '?',
  '0',
  ' n/a ',
  '---',
  '...',
];
const NO_REPLY = [
  'noreply@acme.com',
  'no-reply@acme.com',
  'NoReply@Acme.com',
  'no_reply@acme.com',
  'donotreply@acme.com',
  'do-not-reply@acme.com',
  'do_not_reply@acme.com',
  'noreply+bounce@acme.com',
  'no-reply-1234@acme.com',
  'notifications@github.com',
  'noreply@github.com',
  'mailer-daemon@acme.com',
  'MAILER-DAEMON@mx.acme.com',
  'reply+AB12CD@reply.github.com',
  'someone@noreply.acme.com',
  'Acme Support <no-reply@acme.com>',
  ' mailto:noreply@acme.com ',
];

describe('isJunkValue', () => {
  it.each(JUNK_WORDS)('%j is junk', (value) => {
    expect(isJunkValue(value)).toBe(true);
  });

  it.each([null, undefined, 0, 42, true, false, {}, [], ['a@b.com'], { email: 'a@b.com' }])('the non-string %j is junk', (value) => {
    expect(isJunkValue(value)).toBe(true);
  });

  it.each(NO_REPLY)('the no-reply address %j is junk', (value) => {
    expect(isJunkValue(value)).toBe(true);
  });

  it.each([
    'jo@acme.com',
    'octocat',
    'Jo Doe',
    'nan',
    'nonexistent',
    'unknown-user',
    'n/a@acme.com',
    'reply@acme.com',
    'notifications@acme.com',
    'octocat@users.noreply.github.com',
    '12345+octocat@users.noreply.github.com',
  ])('%j is not junk', (value) => {
    expect(isJunkValue(value)).toBe(false);
  });

  it('a GitHub noreply address without a valid login is junk', () => {
    expect(isJunkValue('1+not_a_login@users.noreply.github.com')).toBe(true);
  });
});

describe('normalizeEmail', () => {
  it.each(JUNK_WORDS.filter((word) => word.trim() !== ''))('rejects %j as "not an identifier"', (value) => {
    expect(rejected(normalizeEmail(value))).toBe(`${JSON.stringify(value.trim())} is not an identifier`);
  });

  it('names empty, null, undefined and non-strings readably', () => {
    expect(rejected(normalizeEmail(''))).toBe('an empty value is not an identifier');
    expect(rejected(normalizeEmail('   '))).toBe('an empty value is not an identifier');
    expect(rejected(normalizeEmail(null))).toBe('null is not an identifier');
    expect(rejected(normalizeEmail(undefined))).toBe('undefined is not an identifier');
    expect(rejected(normalizeEmail(42))).toBe('number 42 is not an identifier');
    expect(rejected(normalizeEmail({}))).toBe('a value of type object is not an identifier');
    expect(rejected(normalizeEmail(['jo@acme.com']))).toBe('an array is not an identifier');
  });

  it.each(NO_REPLY)('rejects the no-reply address %j', (value) => {
    expect(rejected(normalizeEmail(value))).toMatch(/is a no-reply address, not an identifier$/);
  });

  it('keeps the spelling for display and lowercases the match key', () => {
    expect(accepted(normalizeEmail('  Jo.Doe@Acme.COM  '))).toEqual({ type: 'email', value: 'jo.doe@acme.com', display: 'Jo.Doe@Acme.COM' });
  });

  it('keeps dots and +tags outside Gmail', () => {
    expect(accepted(normalizeEmail('jo.doe+news@acme.com')).value).toBe('jo.doe+news@acme.com');
    expect(accepted(normalizeEmail('jo.doe+news@outlook.com')).value).toBe('jo.doe+news@outlook.com');
  });

  it.each([
    ['jodoe@gmail.com', 'jodoe@gmail.com'],
    ['Jo.Doe@gmail.com', 'jodoe@gmail.com'],
    ['j.o.d.o.e@GMAIL.com', 'jodoe@gmail.com'],
    ['jodoe+news@gmail.com', 'jodoe@gmail.com'],
    ['jo.doe+news+more@gmail.com', 'jodoe@gmail.com'],
    ['Jo.Doe@googlemail.com', 'jodoe@gmail.com'],
    ['jo.doe+x@GoogleMail.com', 'jodoe@gmail.com'],
  ])('Gmail: %j has the match key %j', (input, key) => {
    const identity = accepted(normalizeEmail(input));
    expect(identity.value).toBe(key);
    expect(identity.display).toBe(input);
  });

  it('does not apply the Gmail rules to look-alike domains', () => {
    expect(accepted(normalizeEmail('jo.doe+x@gmail.co.uk')).value).toBe('jo.doe+x@gmail.co.uk');
    expect(accepted(normalizeEmail('jo.doe+x@mail.gmail.com')).value).toBe('jo.doe+x@mail.gmail.com');
  });

  it.each([
    ['Jo Doe <Jo@Acme.com>', 'Jo@Acme.com'],
    ['"Jo Doe" <Jo@Acme.com>', 'Jo@Acme.com'],
    ['  "Doe, Jo" <jo@acme.com>  ', 'jo@acme.com'],
    ['Doe, Jo <jo@acme.com>', 'jo@acme.com'],
    ['<jo@acme.com>', 'jo@acme.com'],
    ['mailto:Jo@Acme.com', 'Jo@Acme.com'],
    ['MAILTO:jo@acme.com?subject=Hello', 'jo@acme.com'],
    ['"Jo" <jo.doe+x@googlemail.com>', 'jo.doe+x@googlemail.com'],
  ])('reads the address of %j', (input, display) => {
    const identity = accepted(normalizeEmail(input));
    expect(identity.display).toBe(display);
    expect(identity.value).toBe(accepted(normalizeEmail(display)).value);
  });

  it('accepts internationalized addresses', () => {
    expect(accepted(normalizeEmail('Jö@Bücher.de'))).toEqual({ type: 'email', value: 'jö@bücher.de', display: 'Jö@Bücher.de' });
  });

  it.each([
    'jo',
    'jo@',
    '@acme.com',
    'jo@acme',
    'jo@acme.c',
    'jo@acme.123',
    'jo@@acme.com',
    'jo@acme..com',
    'jo.@acme.com',
    '.jo@acme.com',
    'jo..doe@acme.com',
    'jo@-acme.com',
    'jo@acme-.com',
    'jo@acme.com.',
    'jo@[192.168.0.1]',
    '"jo doe"@acme.com',
    'jo doe@acme.com',
    'jo@acme.com, ann@acme.com',
    'Jo <jo@acme.com> trailing',
    'jo@localhost',
    `${'a'.repeat(65)}@acme.com`,
    `jo@${'a'.repeat(64)}.com`,
    '+news@gmail.com',
    'https://acme.com',
  ])('rejects the malformed address %j', (input) => {
    expect(rejected(normalizeEmail(input))).toMatch(/is not a valid email address$/);
  });

  it('rejects very long input without parsing it', () => {
    expect(rejected(normalizeEmail(`${'a'.repeat(5000)}@acme.com`))).toMatch(/too long/);
  });

  it.each([
    ['octocat@users.noreply.github.com', 'octocat', 'octocat'],
    ['12345+octocat@users.noreply.github.com', 'octocat', 'octocat'],
    ['583231+The-Octocat@Users.NoReply.GitHub.com', 'the-octocat', 'The-Octocat'],
    ['Octo Cat <12345+octocat@users.noreply.github.com>', 'octocat', 'octocat'],
  ])('turns the GitHub noreply address %j into the GitHub identity', (input, value, display) => {
    expect(accepted(normalizeEmail(input))).toEqual({ type: 'github', value, display });
  });

  it('rejects a GitHub noreply address whose login is not a GitHub username', () => {
    expect(rejected(normalizeEmail('1+not_a_login@users.noreply.github.com'))).toMatch(/GitHub noreply address/);
  });

  it('never throws, and accepted keys are lowercase, trimmed and of the right type', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.emailAddress(), fc.string({ unit: 'grapheme' })), (raw) => {
        const result = normalizeEmail(raw);
        if (result.ok) {
          expect(['email', 'github']).toContain(result.identity.type);
          expect(result.identity.value).toBe(result.identity.value.toLowerCase());
          expect(result.identity.value).toBe(result.identity.value.trim());
          expect(isJunkValue(raw)).toBe(false);
        } else {
          expect(result.reason.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a plain address as the RFC 5322 parser does (the fast path skips the parser)', () => {
    // Inputs near the fast path's edges: its own alphabet, dots, and characters only the parser accepts.
    const part = fc.string({ unit: fc.constantFrom(...'aZ09.-_+!#$%&*/=?^`{|}~\'"() @,;:<>[]\\'.split('')), minLength: 0, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.emailAddress(),
          fc.tuple(part, part).map(([local, domain]) => `${local}@${domain}`),
        ),
        (input) => {
          if (!PLAIN_ADDRESS.test(input)) return;
          const parsed = emailAddresses.parseOneAddress({ input, rejectTLD: true, rfc6532: true, commaInDisplayName: true });
          expect(parsed?.type).toBe('mailbox');
          expect(parsed && 'address' in parsed ? parsed.address : null).toBe(input);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('is idempotent: the match key of a match key is itself, and display normalizes to the same key', () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.boolean(), fc.boolean(), (address, upper, wrap) => {
        const input = wrap ? `"Someone" <${upper ? address.toUpperCase() : address}>` : ` ${address} `;
        const first = normalizeEmail(input);
        if (!first.ok) return;
        expect(normalizeEmail(first.identity.display)).toEqual(first);
        if (first.identity.type === 'email') {
          const again = accepted(normalizeEmail(first.identity.value));
          expect(again.value).toBe(first.identity.value);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('gives every Gmail spelling of one mailbox the same key', () => {
    const local = fc.stringMatching(/^[a-z0-9]{1,20}$/);
    fc.assert(
      fc.property(local, fc.array(fc.nat(), { maxLength: 3 }), fc.option(fc.stringMatching(/^[a-z0-9]{1,8}$/)), fc.boolean(), (name, dots, tag, googlemail) => {
        let spelled = name;
        for (const at of dots) {
          const i = 1 + (at % Math.max(1, spelled.length - 1));
          if (i < spelled.length && spelled[i - 1] !== '.' && spelled[i] !== '.') spelled = `${spelled.slice(0, i)}.${spelled.slice(i)}`;
        }
        const input = `${spelled.toUpperCase()}${tag ? `+${tag}` : ''}@${googlemail ? 'googlemail.com' : 'gmail.com'}`;
        expect(accepted(normalizeEmail(input)).value).toBe(`${name}@gmail.com`);
      }),
    );
  });
});

describe('normalizeHandle', () => {
  it.each(['github', 'twitter', 'linkedin'] as const)('%s: rejects every junk value', (type) => {
    for (const value of [...JUNK_WORDS, null, undefined, 7, {}]) {
      expect(rejected(normalizeHandle(type, value))).toMatch(/is not an identifier$/);
    }
  });

  it.each([
    ['octocat', 'octocat', 'octocat'],
    ['@Octocat', 'octocat', 'Octocat'],
    ['  @The-Octocat  ', 'the-octocat', 'The-Octocat'],
    ['a', 'a', 'a'],
    ['a'.repeat(39), 'a'.repeat(39), 'a'.repeat(39)],
    ['github.com/Octocat', 'octocat', 'Octocat'],
    ['www.github.com/octocat', 'octocat', 'octocat'],
    ['https://github.com/octocat', 'octocat', 'octocat'],
    ['http://github.com/octocat/', 'octocat', 'octocat'],
    ['https://www.github.com/octocat?tab=repositories', 'octocat', 'octocat'],
    ['https://github.com/octocat#readme', 'octocat', 'octocat'],
    ['HTTPS://GITHUB.COM/Octocat', 'octocat', 'Octocat'],
  ])('github: %j → %j', (input, value, display) => {
    expect(accepted(normalizeHandle('github', input))).toEqual({ type: 'github', value, display });
  });

  it.each(['-octocat', 'octocat-', 'octo_cat', 'octo cat', 'octo.cat', 'a'.repeat(40), 'octocat!', 'ö'])('github: rejects the invalid username %j', (input) => {
    expect(rejected(normalizeHandle('github', input))).toMatch(/is not a valid GitHub username$/);
  });

  it.each([
    'https://gitlab.com/octocat',
    'twitter.com/octocat',
    'https://github.com/octocat/hello-world',
    'https://github.com/orgs/acme',
    'https://github.com',
    'https://gist.github.com/octocat',
    'ftp://github.com/octocat',
  ])('github: rejects %j, which is not a GitHub profile URL', (input) => {
    expect(rejected(normalizeHandle('github', input))).toMatch(/is not a GitHub profile URL$/);
  });

  it.each([
    ['jack', 'jack', 'jack'],
    ['@Jack', 'jack', 'Jack'],
    ['jack_dorsey_123', 'jack_dorsey_123', 'jack_dorsey_123'],
    ['x.com/jack', 'jack', 'jack'],
    ['https://x.com/Jack', 'jack', 'Jack'],
    ['https://www.x.com/jack/', 'jack', 'jack'],
    ['twitter.com/jack', 'jack', 'jack'],
    ['http://twitter.com/jack?lang=en', 'jack', 'jack'],
    ['https://www.twitter.com/jack', 'jack', 'jack'],
    ['https://mobile.twitter.com/jack', 'jack', 'jack'],
    ['https://twitter.com/@jack', 'jack', 'jack'],
    ['https://twitter.com/#!/jack', 'jack', 'jack'],
  ])('twitter: %j → %j', (input, value, display) => {
    expect(accepted(normalizeHandle('twitter', input))).toEqual({ type: 'twitter', value, display });
  });

  it.each(['a'.repeat(16), 'jack-dorsey', 'jack dorsey', 'jäck', 'x.com', 'mailto:jack@x.com'])('twitter: rejects the invalid handle %j', (input) => {
    expect(rejected(normalizeHandle('twitter', input))).toMatch(/is not a valid X\/Twitter handle$/);
  });

  it.each([
    'https://github.com/jack',
    'https://x.com/jack/status/20',
    'https://twitter.com/intent/tweet',
    'https://x.com/',
    'x.com/',
    'https://nitter.net/jack',
  ])('twitter: rejects %j, which is not an X/Twitter profile URL', (input) => {
    expect(rejected(normalizeHandle('twitter', input))).toMatch(/is not a X\/Twitter profile URL$/);
  });

  it.each([
    ['jane-doe', 'jane-doe', 'jane-doe'],
    ['Jane_Doe-42', 'jane_doe-42', 'Jane_Doe-42'],
    ['linkedin.com/in/jane-doe', 'jane-doe', 'jane-doe'],
    ['www.linkedin.com/in/Jane-Doe/', 'jane-doe', 'Jane-Doe'],
    ['https://www.linkedin.com/in/jane-doe', 'jane-doe', 'jane-doe'],
    ['https://linkedin.com/in/jane-doe/?originalSubdomain=de', 'jane-doe', 'jane-doe'],
    ['https://de.linkedin.com/in/jane-doe', 'jane-doe', 'jane-doe'],
    ['https://www.linkedin.com/in/jane-doe/de', 'jane-doe', 'jane-doe'],
    ['https://www.linkedin.com/in/jane-doe/en-us/', 'jane-doe', 'jane-doe'],
    ['https://www.linkedin.com/in/jane-doe/details/experience/', 'jane-doe', 'jane-doe'],
    ['https://www.linkedin.com/in/jos%C3%A9-garc%C3%ADa-1a2b3c/', 'josé-garcía-1a2b3c', 'josé-garcía-1a2b3c'],
    ['jos%C3%A9-garc%C3%ADa', 'josé-garcía', 'josé-garcía'],
    // The form LinkedIn's public API documents, a path without the host.
    ['in/jane-doe', 'jane-doe', 'jane-doe'],
    ['/in/Jane-Doe/', 'jane-doe', 'Jane-Doe'],
    ['in/jane-doe?trk=profile', 'jane-doe', 'jane-doe'],
    ['https://uk.linkedin.com/in/jane-doe?trk=x', 'jane-doe', 'jane-doe'],
    ['José-García', 'josé-garcía', 'José-García'],
  ])('linkedin: %j → %j', (input, value, display) => {
    expect(accepted(normalizeHandle('linkedin', input))).toEqual({ type: 'linkedin', value, display });
  });

  it('linkedin: composed and decomposed accents give one key', () => {
    const composed = accepted(normalizeHandle('linkedin', 'jos\u00e9-doe'));
    const decomposed = accepted(normalizeHandle('linkedin', 'jose\u0301-doe'));
    expect(decomposed.value).toBe(composed.value);
  });

  it.each(['jd', 'a'.repeat(101), 'jane doe', 'jane.doe', 'jane%ZZdoe', 'jane!'])('linkedin: rejects the invalid profile id %j', (input) => {
    expect(rejected(normalizeHandle('linkedin', input))).toMatch(/is not a valid LinkedIn profile id$/);
  });

  it.each([
    'company/acme',
    'https://www.linkedin.com/company/acme',
    'https://www.linkedin.com/',
    'https://www.linkedin.com/pub/jane-doe/1/2/3',
    'https://github.com/jane-doe',
    'https://evil-linkedin.com/in/jane-doe',
  ])('linkedin: rejects %j, which is not a LinkedIn profile URL', (input) => {
    expect(rejected(normalizeHandle('linkedin', input))).toMatch(/is not a LinkedIn profile URL$/);
  });

  it.each([
    ['github', '0/'],
    ['github', 'https://github.com/null'],
    ['twitter', 'x.com/n/a'],
    ['twitter', '/unknown/'],
  ] as const)('%s: a placeholder in a URL path (%j) is not an identifier either', (type, input) => {
    expect(rejected(normalizeHandle(type, input))).toMatch(/is not (?:an identifier|a X\/Twitter profile URL)$/);
  });

  it('accepts the push shape {type: "handle", value}', () => {
    expect(accepted(normalizeHandle('github', { type: 'handle', value: '@Octocat' }))).toEqual({ type: 'github', value: 'octocat', display: 'Octocat' });
    expect(rejected(normalizeHandle('github', { type: 'handle', value: 'n/a' }))).toBe('"n/a" is not an identifier');
  });

  it('never throws, and an accepted key is the lowercased display and normalizes to itself', () => {
    fc.assert(
      fc.property(fc.constantFrom('github', 'twitter', 'linkedin'), fc.oneof(fc.anything(), fc.string(), fc.webUrl()), (type, raw) => {
        const result = normalizeHandle(type, raw);
        if (!result.ok) return;
        expect(result.identity.value).toBe(result.identity.display.toLowerCase());
        expect(normalizeHandle(type, result.identity.value)).toEqual({ ok: true, identity: { ...result.identity, display: result.identity.value } });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('normalizeDiscord', () => {
  it.each([
    [{ type: 'username', username: 'Wumpus', discriminator: 0 }, 'wumpus', 'Wumpus'],
    [{ type: 'username', username: 'wumpus' }, 'wumpus', 'wumpus'],
    [{ type: 'username', username: 'wumpus', discriminator: null }, 'wumpus', 'wumpus'],
    [{ type: 'username', username: 'Wumpus', discriminator: 1234 }, 'wumpus#1234', 'Wumpus#1234'],
    [{ type: 'username', username: 'Wumpus', discriminator: 7 }, 'wumpus#0007', 'Wumpus#0007'],
    [{ type: 'username', username: 'Wumpus', discriminator: '0042' }, 'wumpus#0042', 'Wumpus#0042'],
    [{ type: 'username', username: ' @wumpus.dev ', discriminator: 0 }, 'wumpus.dev', 'wumpus.dev'],
    ['Wumpus#1234', 'wumpus#1234', 'Wumpus#1234'],
    ['Wumpus#0', 'wumpus', 'Wumpus'],
    ['wumpus#0000', 'wumpus', 'wumpus'],
    ['  wumpus_42  ', 'wumpus_42', 'wumpus_42'],
    ['@Wumpus', 'wumpus', 'Wumpus'],
    ['Old Name#0001', 'old name#0001', 'Old Name#0001'],
  ])('%j → %j', (input, value, display) => {
    expect(accepted(normalizeDiscord(input))).toEqual({ type: 'discord', value, display });
  });

  it('rejects junk', () => {
    for (const value of [
      ...JUNK_WORDS,
      null,
      undefined,
      5,
      [],
      { type: 'username' },
      { type: 'username', username: 'n/a' },
      { type: 'username', username: '' },
    ]) {
      expect(rejected(normalizeDiscord(value))).toMatch(/is not an identifier$/);
    }
  });

  it.each(['w', 'a'.repeat(33), 'wum@pus', 'wum:pus', 'a#b#1234', 'wum```pus'])('rejects the invalid username %j', (input) => {
    expect(rejected(normalizeDiscord(input))).toMatch(/is not a valid Discord username$/);
  });

  it.each([-1, 10000, 1.5, 'abc'])('rejects the discriminator %j', (discriminator) => {
    expect(rejected(normalizeDiscord({ type: 'username', username: 'wumpus', discriminator }))).toMatch(/is not a valid Discord discriminator/);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.record({ username: fc.string(), discriminator: fc.oneof(fc.integer(), fc.string()) })), (raw) => {
        const result = normalizeDiscord(raw);
        if (result.ok) expect(result.identity.value).toBe(result.identity.display.toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });
});

describe('identityKey and identityHash', () => {
  it('joins type and value', () => {
    expect(identityKey({ type: 'email', value: 'jo@acme.com' })).toBe('email:jo@acme.com');
    expect(identityKey({ type: 'discord', value: 'wumpus#1234' })).toBe('discord:wumpus#1234');
  });

  it('hashes the key with SHA-256, in hex', () => {
    const expected = createHash('sha256').update('email:jo@acme.com').digest('hex');
    expect(identityHash({ type: 'email', value: 'jo@acme.com' })).toBe(expected);
    expect(identityHash({ type: 'email', value: 'jo@acme.com' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the match key, so every spelling of one identity has one hash', () => {
    const a = accepted(normalizeEmail('"Jo" <Jo.Doe+news@GoogleMail.com>'));
    const b = accepted(normalizeEmail('jodoe@gmail.com'));
    expect(identityHash(a)).toBe(identityHash(b));
    expect(identityHash(accepted(normalizeHandle('github', 'https://github.com/Octocat')))).toBe(
      identityHash(accepted(normalizeEmail('1+octocat@users.noreply.github.com'))),
    );
  });

  it('tells types apart', () => {
    expect(identityHash({ type: 'github', value: 'jack' })).not.toBe(identityHash({ type: 'twitter', value: 'jack' }));
  });
});

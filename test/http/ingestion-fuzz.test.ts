import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { systemClock } from '../../src/clock.ts';
import type { HearthApp } from '../../src/http/types.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { ACTIVITY_TYPE_CATALOG } from '../../src/modules/activity-types/activity-type-catalog.ts';
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from '../helpers/test-app.ts';
import { ENGINES } from '../helpers/test-database.ts';
import { cliActor, cliWriter } from '../../src/core/writer.ts';
import { seedCustomField } from '../helpers/seed.ts';

/**
 * Property-based fuzzing of the core ingestion family (docs/ingestion.md), on every engine: random and
 * mutated payloads for POST /community/v1/source/{id}/user and /activity, random lookups
 * (GET /community/v1/members) and removal requests (DELETE /community/v1/user/{email}) never get a 5xx.
 * - Every answer is one the interface names (pushes 202, 400, 403, 404; lookups and removals 200 for
 *   success), and every 400 has the core body {reason, docs, detail} with a detail.
 * - The structured bodies run twice: once with no U+0000 anywhere, once with at least one NUL in every body,
 *   which must then be a 400 (never a 500: PostgreSQL text cannot hold it).
 * - After each batch the database keeps its invariants: identities, merge survivors, source profiles and
 *   activities point at live contacts; no merged contact is left; no contact is nameless; no background
 *   (erasure) job failed.
 *
 * fast-check picks a fresh random seed each run and prints it with the shrunk counterexample on failure;
 * replay with `fc.assert(..., { seed, path })`. A 5xx fails with the server's own error log (the app is
 * built here with a logger that keeps errors), so the cause is in the report. The faults it found are
 * kept at the end as regression cases ("faults found by fuzzing").
 */

// ---------------------------------------------------------------------------------------------------------
// Generators: strings

/** Placeholder values clients send for "nothing"; docs/ingestion.md says they never match. */
const JUNK_WORDS = ['', ' ', '\t\n', 'n/a', 'N/A', 'NA', '-', '--', '?', 'null', 'NULL', 'undefined', 'unknown', 'none', 'None', '0', '...'];

/** Unicode that tends to break naive code: emoji (ZWJ sequences, flags), RTL, combining marks, overrides. */
const UNICODE_SAMPLES = [
  'Zoë Ñúñez',
  'José Álvarez',
  '李小龙',
  '山田 太郎',
  'محمد علي',
  'שלום עליכם',
  'Ελένη Παπαδοπούλου',
  'Владимир',
  '👩‍💻',
  '🦄 Unicorn',
  '🏳️‍🌈',
  '🇩🇪🇫🇷',
  'a\u0301\u0301\u0301',
  '\u202Eevil\u202C',
  '\u200B',
  '\uFEFFbom',
  'İstanbul',
  'ǅemal',
  'ß',
  'ﬃ',
  '\u2028line\u2029',
  'Ω≈ç√∫',
  '𝕳𝖊𝖆𝖗𝖙𝖍',
];

/** Lone UTF-16 surrogates survive JSON (as \ud800 escapes) but are not valid Unicode. */
const SURROGATES = ['\uD800', 'a\uDC00b', '\uDBFF\uDBFF', 'ok\uD83D'];

const controlChar = (withNul: boolean) =>
  fc.integer({ min: withNul ? 0 : 1, max: 0x1f }).chain((code) => fc.constantFrom(String.fromCharCode(code), String.fromCharCode(0x7f), '\u0085'));

/** Strings of control characters mixed with letters; with `withNul`, U+0000 may be among them. */
const controlString = (withNul: boolean) => fc.string({ unit: fc.oneof(controlChar(withNul), fc.constantFrom('a', ' ', 'é')), maxLength: 20 });

/** A string that certainly holds a NUL. */
const nulString = fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}\u0000${b}`);

/** Very long strings: repetitive (compressible) and random (not compressible), up to ~6,000 characters. */
const longString = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom('x', 'ab', '🦄', 'é '), fc.integer({ min: 256, max: 6_000 })).map(([unit, n]) => unit.repeat(n)), weight: 1 },
  // size 'max': fast-check otherwise keeps strings within a few characters of minLength.
  { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 300, maxLength: 4_000, size: 'max' }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 300, maxLength: 1_500, size: 'max' }), weight: 1 },
);

/**
 * Free text of every kind; `extra` are realistic values for the field. With `withNul`, some strings hold a
 * U+0000 (the NUL-free runs strip every NUL from their bodies, whatever made it).
 */
function text(withNul: boolean, extra: fc.Arbitrary<string>[] = []): fc.Arbitrary<string> {
  const kinds: fc.WeightedArbitrary<string>[] = [
    ...extra.map((arbitrary) => ({ arbitrary, weight: 6 })),
    { arbitrary: fc.constantFrom(...JUNK_WORDS), weight: 3 },
    { arbitrary: fc.constantFrom(...UNICODE_SAMPLES), weight: 2 },
    { arbitrary: fc.constantFrom(...SURROGATES), weight: 1 },
    { arbitrary: fc.string({ maxLength: 30 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
    { arbitrary: controlString(withNul), weight: 1 },
    { arbitrary: longString, weight: 2 },
  ];
  if (withNul) kinds.push({ arbitrary: nulString, weight: 2 });
  return fc.oneof(...kinds);
}

/** Something of the wrong type where a string belongs: numbers, booleans, nested objects, arrays, null. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.constant({ a: { b: { c: [1, 'two', null] } } }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/**
 * How far a generated body strays from the schema. 0: every value has the type the schema wants (junk,
 * unicode, control characters, long strings, but strings where strings belong), so most pushes reach the
 * service and its database; 1: now and then a value of the wrong type or a fault the service must find
 * (custom field values, timestamps, unknown activity types); 2: often.
 */
type Chaos = 0 | 1 | 2;

/** A value of the field's kind; with chaos, sometimes one of the wrong type. */
function field(realistic: fc.Arbitrary<unknown>, chaos: Chaos): fc.Arbitrary<unknown> {
  if (chaos === 0) return realistic;
  return fc.oneof({ arbitrary: realistic, weight: chaos === 1 ? 30 : 6 }, { arbitrary: wrongType, weight: 1 });
}

/** `realistic` alone without chaos; with chaos, sometimes `wild` (less often for a higher `weight`). */
function chaotic<T>(chaos: Chaos, realistic: fc.Arbitrary<T>, wild: fc.Arbitrary<unknown>, weight = 1): fc.Arbitrary<unknown> {
  if (chaos === 0) return realistic;
  return fc.oneof({ arbitrary: realistic as fc.Arbitrary<unknown>, weight: chaos === 1 ? 8 * weight : 2 * weight }, { arbitrary: wild, weight: 1 });
}

/** Non-empty after trimming, as ids and tag names must be. */
const nonBlank = (arbitrary: fc.Arbitrary<string>) => arbitrary.filter((value) => value.trim() !== '');

// ---------------------------------------------------------------------------------------------------------
// Generators: identities and field values

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'alan turing', 'Barbara H. Liskov', 'Dr. Katherine Johnson Jr.', "O'Brien", 'Li Na', 'von Neumann, John'];
const handleWord = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}[a-z0-9]$/);

const emailString = fc.oneof(
  fc.emailAddress(),
  fc.tuple(fc.constantFrom(...NAMES, '', 'Zoë 🦄'), fc.emailAddress()).map(([name, address]) => `${name} <${address}>`),
  fc.tuple(fc.constantFrom(...NAMES), fc.emailAddress()).map(([name, address]) => ` "${name}" <${address}> `),
  fc
    .tuple(handleWord, fc.constantFrom('+news', '+a+b', ''), fc.constantFrom('gmail.com', 'googlemail.com', 'GMail.COM'))
    .map(([local, tag, domain]) => `${local.split('').join('.')}${tag}@${domain}`),
  fc.tuple(fc.nat(99_999_999), handleWord).map(([id, login]) => `${id}+${login}@users.noreply.github.com`),
  handleWord.map((login) => `${login}@users.noreply.github.com`),
  fc.constantFrom(
    'noreply@example.com',
    'no-reply@acme.example.com',
    'notifications@github.com',
    'mailto:ada@example.org',
    'a@b',
    '@example.com',
    'ada@',
    'a@@b.com',
    'a b@example.com',
    'δοκιμή@παράδειγμα.δοκιμή',
    'ada@xn--bcher-kva.example',
    'ADA@EXAMPLE.ORG',
    `${'l'.repeat(65)}@example.com`,
    `a@${'d'.repeat(250)}.com`,
    'throwaway@mailinator.com',
    'peter@globex.example.co.uk',
  ),
);

const handleString = fc.oneof(
  handleWord,
  handleWord.map((h) => `@${h}`),
  handleWord.map((h) => `https://github.com/${h.toUpperCase()}/`),
  handleWord.map((h) => `github.com/${h}`),
  handleWord.map((h) => `https://x.com/${h.replace(/-/g, '_').slice(0, 15)}`),
  handleWord.map((h) => `twitter.com/#!/${h.replace(/-/g, '_').slice(0, 15)}`),
  handleWord.map((h) => `https://www.linkedin.com/in/${h}/`),
  handleWord.map((h) => `https://de.linkedin.com/in/${encodeURIComponent(`${h}-ü`)}/de`),
  fc.constantFrom(
    'https://github.com/orgs/x',
    'https://x.com/home',
    'linkedin.com/company/acme',
    'ftp://github.com/x',
    'http://',
    '//',
    '%E0%A4%A',
    'https://linkedin.com/in/%',
  ),
);

function handle(withNul: boolean): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: handleString, weight: 4 },
    {
      arbitrary: fc.record(
        { type: fc.constantFrom('handle', 'url', 'x'), value: fc.oneof(handleString, text(withNul), fc.constant(null)) },
        { requiredKeys: [] },
      ),
      weight: 4,
    },
    { arbitrary: text(withNul), weight: 1 },
  );
}

function discord(withNul: boolean): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.tuple(handleWord, fc.nat(9_999)).map(([name, tag]) => `${name}#${String(tag).padStart(4, '0')}`),
    handleWord,
    fc.record(
      {
        type: fc.constantFrom('username', 'id'),
        username: fc.oneof(handleWord, text(withNul), fc.constant(null)),
        discriminator: fc.oneof(fc.nat(20_000), fc.constantFrom('0', '0000', '1234', 'abcd', '-1', ''), fc.constant(null)),
      },
      { requiredKeys: [] },
    ),
    text(withNul),
  );
}

const isoDate = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date(), noInvalidDate: true });

/** Timestamps in every accepted form (ISO 8601 variants, RFC 2822/1123), and with chaos, refused ones. */
const validTimestamp = fc.oneof(
  isoDate.map((d) => d.toISOString()),
  isoDate.map((d) => d.toISOString().replace('Z', '+02:00')),
  isoDate.map((d) => d.toISOString().replace(/\.\d+Z$/, '')),
  isoDate.map((d) =>
    d
      .toISOString()
      .replace('T', ' ')
      .replace(/\.(\d+)Z$/, '.$1123456-0530'),
  ),
  isoDate.map((d) => d.toISOString().slice(0, 10)),
  isoDate.map((d) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')),
  isoDate.map((d) => d.toUTCString()),
  isoDate.map((d) => d.toUTCString().replace('GMT', '+0100 (CET)')),
  isoDate.map((d) =>
    d
      .toUTCString()
      .replace(/^\w+, /, '')
      .replace(/ \d\d(\d\d) /, ' $1 ')
      .replace('GMT', 'PDT'),
  ),
  fc.constantFrom('Tue, 03 Mar 2026 10:15:30 GMT', '2016-12-31T23:59:60Z', '1970-01-01T00:00:00Z'),
);
const refusedTimestamp = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    'Mon, 03 Mar 2026 10:15:30 GMT',
    '2024-02-30T00:00:00Z',
    '2024-05-01T25:00:00Z',
    '2016-12-31T23:58:60Z',
    '1969-12-31T23:59:59Z',
    '1970-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59Z',
    '2024-05-01T10:30:00+24:00',
    '0000-00-00',
    'yesterday',
    'now',
    '',
    '   ',
    '1714559400',
    '2024-W18-3',
    '01/05/2024',
    'Wed, 01 May 2024 10:30:00 XYZ',
    '2024-05-01T10:30:00.' + '9'.repeat(300),
  ),
  fc.string({ maxLength: 40 }),
  fc.integer(),
);
const timestamp = (chaos: Chaos) =>
  chaotic(chaos, fc.oneof({ arbitrary: validTimestamp, weight: 8 }, { arbitrary: fc.constant(null), weight: 1 }), refusedTimestamp, 1);

const CATALOG = ACTIVITY_TYPE_CATALOG.map((entry) => entry.id);
/** From the catalog or the community's own; with chaos, unknown ones and other types. */
const activityType = (chaos: Chaos) =>
  chaotic(
    chaos,
    fc.oneof({ arbitrary: fc.constantFrom(...CATALOG), weight: 8 }, { arbitrary: fc.constant('fuzz_custom_type'), weight: 1 }),
    fc.oneof(fc.constantFrom('TWEET', ' tweet', 'tweet ', '', 'unknown_type'), fc.string({ maxLength: 20 }), wrongType),
    2,
  );

// ---------------------------------------------------------------------------------------------------------
// The fixtures a push can refer to (made in beforeAll), and the body generators that use them

interface Fixtures {
  sourceId: number;
  otherSourceId: number;
  foreignSourceId: number;
  tagId: number;
  activityTagId: number;
  /** Contact custom fields by value type; `restricted` may only be written by the other source. */
  fields: Record<'string' | 'url' | 'int' | 'number' | 'date' | 'boolean' | 'enum' | 'multi' | 'restricted' | 'deleted' | 'organization', number>;
}

/** The sender's ID: mostly from a small range (so pushes meet again), else any integer or text. */
function externalId(withNul: boolean, chaos: Chaos): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `u-${n}`), weight: 6 },
    { arbitrary: fc.integer(), weight: 2 },
    { arbitrary: fc.constantFrom(2 ** 53, 2 ** 60, -0, 1e300), weight: 1 },
    { arbitrary: chaos === 0 ? nonBlank(text(withNul)) : text(withNul), weight: 3 },
    ...(chaos === 0 ? [] : [{ arbitrary: fc.constantFrom(1.5, '', ' '), weight: 1 }]),
  );
}

/** A value that fits the custom field's definition (docs/ingestion.md: string, url, int, number, date, boolean, enum). */
function fittingCustomField(fixtures: Fixtures, withNul: boolean): fc.Arbitrary<unknown> {
  const { fields } = fixtures;
  const typed = (id: number, type: string, value: fc.Arbitrary<unknown>) =>
    fc.record({ id: fc.constantFrom(id, String(id)), value: fc.record({ type: fc.constant(type), value }, { requiredKeys: ['value'] }) });
  return fc.oneof(
    typed(fields.string, 'string', text(withNul)),
    typed(fields.url, 'url', fc.webUrl({ withQueryParameters: true, withFragments: true })),
    typed(fields.int, 'int', fc.maxSafeInteger()),
    typed(fields.number, 'number', fc.double({ noNaN: true, noDefaultInfinity: true })),
    typed(
      fields.date,
      'date',
      isoDate.map((d) => d.toISOString().slice(0, 10)),
    ),
    typed(fields.boolean, 'boolean', fc.boolean()),
    typed(fields.enum, 'enum', fc.constantFrom('free', 'pro', 'enterprise')),
    typed(fields.multi, 'enum', fc.oneof(fc.subarray(['go', 'rust', 'ts']), fc.constantFrom('go'), fc.constant(['ts', 'ts']))),
    // Without a value, or with null: the field is cleared.
    fc.record({ id: fc.constantFrom(fields.string, fields.int, fields.multi), value: fc.constant(null) }, { requiredKeys: ['id'] }),
  );
}

/** Any value, of any declared type, for any field or none: most of these are faults for a 400. */
function customFieldValue(withNul: boolean): fc.Arbitrary<unknown> {
  const values = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.webUrl(),
    fc.constantFrom(
      'not a url',
      'javascript:alert(1)',
      'https://localhost',
      'free',
      'pro',
      'gold',
      'go',
      'ts',
      'yes',
      '2027-02-28',
      '2027-02-30',
      '0000-01-01',
    ),
    fc.array(fc.constantFrom('go', 'rust', 'ts', 'cobol'), { maxLength: 4 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(2 ** 53, 1e308, -0),
    fc.boolean(),
    isoDate.map((d) => d.toISOString().slice(0, 10)),
    text(withNul),
    wrongType,
  );
  return fc.oneof(
    fc.constant(null),
    fc.record({ type: fc.constantFrom('string', 'url', 'int', 'number', 'date', 'boolean', 'enum', 'text', ''), value: values }, { requiredKeys: [] }),
    wrongType,
  );
}

/** Custom fields by existing and missing IDs (bare, as text, `cf_N`), with fitting or random values. */
function customFields(fixtures: Fixtures, withNul: boolean, chaos: Chaos): fc.Arbitrary<unknown> {
  const fitting = fc.oneof(
    { arbitrary: fc.array(fittingCustomField(fixtures, withNul), { maxLength: 4 }), weight: 6 },
    { arbitrary: fc.constant(null), weight: 1 },
  );
  if (chaos === 0) return fitting;
  const ids = Object.values(fixtures.fields);
  const id = fc.oneof(
    { arbitrary: fc.constantFrom(...ids), weight: 6 },
    { arbitrary: fc.constantFrom(...ids).map((n) => String(n)), weight: 2 },
    { arbitrary: fc.constantFrom(...ids).map((n) => `cf_${n}`), weight: 1 },
    { arbitrary: fc.constantFrom(999_999, -1, 0, 2 ** 53, 1e300, 1.5, '999999', 'abc', ' 1 ', '0x1', '1e0', ''), weight: 2 },
  );
  const entry = fc.record({ id, value: customFieldValue(withNul) }, { requiredKeys: ['id'] });
  return fc.oneof(
    { arbitrary: fitting, weight: chaos === 1 ? 6 : 2 },
    { arbitrary: fc.array(entry, { maxLength: 4 }), weight: 2 },
    { arbitrary: fc.array(field(entry, chaos), { maxLength: 2 }), weight: 1 },
  );
}

/** Tags by ID (existing, deleted-or-missing, of the wrong entity type, malformed) and by name. */
function tags(fixtures: Fixtures, withNul: boolean, tagId: number, chaos: Chaos): fc.Arbitrary<unknown> {
  const byId = fc.record({
    type: fc.constant('id'),
    id: fc.oneof(
      fc.constantFrom(`l_${tagId}`, tagId, String(tagId), `l_${fixtures.tagId}`, `l_${fixtures.activityTagId}`),
      fc.constantFrom('l_999999', 999_999, -1, 2 ** 60, 'l_', 'l_-1', 'abc', ' l_1 '),
      nonBlank(text(withNul)),
    ),
  });
  const byName = fc.record({
    type: fc.constant('name'),
    name: nonBlank(text(withNul, [fc.constantFrom('Speaker', 'speaker ', 'Beta tester', 'x'.repeat(256))])),
  });
  const ref = chaotic(
    chaos,
    fc.oneof(byId, byName),
    fc.oneof(
      wrongType,
      fc.constantFrom(
        { type: 'colour', id: 'x' },
        { type: 'id' },
        { type: 'id', id: '' },
        { type: 'name', name: '' },
        { type: 'name', name: null },
        { name: 'no type' },
      ),
    ),
    3,
  );
  return chaotic(chaos, fc.oneof({ arbitrary: fc.array(ref, { maxLength: 4 }), weight: 6 }, { arbitrary: fc.constant(null), weight: 1 }), wrongType, 3);
}

function phones(withNul: boolean, chaos: Chaos): fc.Arbitrary<unknown> {
  const phone = fc.oneof(
    fc.constantFrom('(415) 555-2671', '+44 20 7946 0958', '+1 202-555-0143 ext. 12', '030 1234567', '+49 (0)30 1234567', '12345678901234567890', '+', '555'),
    fc.stringMatching(/^\+?[0-9 ()-]{3,25}$/),
    text(withNul),
  );
  const list = fc.array(
    fc.oneof(
      phone,
      fc.record(
        { type: fc.oneof(fc.constantFrom('mobile', 'work'), text(withNul), fc.constant(null)), value: fc.oneof(phone, fc.constant(null)) },
        { requiredKeys: [] },
      ),
    ),
    {
      maxLength: 3,
    },
  );
  return chaotic(chaos, fc.oneof({ arbitrary: list, weight: 6 }, { arbitrary: fc.constant(null), weight: 1 }), wrongType, 3);
}

/** An ApiUser: every field of the schema, each drawn from realistic, junk and (with chaos) wrong-typed values. */
function apiUser(fixtures: Fixtures, withNul: boolean, chaos: Chaos): fc.Arbitrary<Record<string, unknown>> {
  const t = (...extra: fc.Arbitrary<string>[]) => field(fc.oneof(text(withNul, extra), fc.constant(null)), chaos);
  return fc.record(
    {
      id: externalId(withNul, chaos),
      fullName: t(fc.constantFrom(...NAMES)),
      firstName: t(fc.constantFrom('Ada', 'Grace', 'Zoë', '李')),
      lastName: t(fc.constantFrom('Lovelace', 'Hopper', 'Ñúñez', 'محمد')),
      username: t(handleWord),
      avatarUrl: t(fc.webUrl()),
      bio: t(fc.lorem({ maxCount: 20 })),
      email: field(
        fc.oneof({ arbitrary: emailString, weight: 6 }, { arbitrary: text(withNul), weight: 1 }, { arbitrary: fc.constant(null), weight: 1 }),
        chaos,
      ),
      linkedin: field(handle(withNul), chaos),
      github: field(handle(withNul), chaos),
      twitter: field(handle(withNul), chaos),
      discord: field(discord(withNul), chaos),
      externalProfiles: field(
        fc.oneof(
          fc.array(
            fc.record(
              {
                url: fc.oneof(handleString, text(withNul), fc.constant(null)),
                name: fc.oneof(fc.constantFrom('github', 'twitter', 'linkedin'), text(withNul)),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 3 },
          ),
          fc.constant(null),
        ),
        chaos,
      ),
      roleAtCompany: t(fc.constantFrom('Engineer', 'CTO')),
      titleAtCompany: t(fc.constantFrom('Staff Engineer', 'Head of DevRel')),
      companyName: t(fc.constantFrom('Initech', 'initech', 'Globex', 'Nobody Inc')),
      companyDomain: t(
        fc.domain(),
        fc.webUrl(),
        fc.constantFrom('https://eng.initech.co.uk', 'gmail.com', 'localhost', '127.0.0.1', 'co.uk', 'ｅｘａｍｐｌｅ.com', 'xn--80ak6aa92e.com'),
      ),
      country: t(fc.constantFrom('US', 'de', 'DE', 'United Kingdom', 'Deutschland', 'XX', 'Remote')),
      city: t(fc.constantFrom('Berlin', 'São Paulo', 'Austin', 'NYC', 'Springfield', 'München')),
      region: t(fc.constantFrom('TX', 'Bavaria', 'Île-de-France', 'EU')),
      rawLocation: t(fc.constantFrom('Austin, TX', 'Remote - EU', 'SF Bay Area', 'Planet Earth', 'Berlin, Germany / Remote', ', , ,')),
      phoneNumber: t(fc.constantFrom('(415) 555-2671', '+44 20 7946 0958', '1'.repeat(40))),
      phoneNumbers: phones(withNul, chaos),
      tags: tags(fixtures, withNul, fixtures.tagId, chaos),
      customFields: customFields(fixtures, withNul, chaos),
    },
    { requiredKeys: ['id'] },
  );
}

/** Extra properties: unknown fields (warnings), and the keys a JSON parser must treat with care. */
const unknownFields = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('favouriteColour', 'constructor', 'toString', 'hasOwnProperty', 'ID', '')),
  fc.jsonValue({ maxDepth: 1 }),
  { maxKeys: 2 },
);

function userBody(fixtures: Fixtures, withNul: boolean, chaos: Chaos): fc.Arbitrary<unknown> {
  const destination = fc.option(
    chaotic(
      chaos,
      fc.constantFrom(fixtures.sourceId, String(fixtures.sourceId)),
      fc.oneof(fc.constantFrom(fixtures.otherSourceId, '0', 'abc', ' 1'), wrongType),
    ),
    { nil: undefined, freq: 3 },
  );
  return fc.tuple(apiUser(fixtures, withNul, chaos), unknownFields, destination, fc.nat(9)).map(([user, extra, destinationSourceId, drop]) => {
    const body: Record<string, unknown> = { ...extra, ...user };
    if (destinationSourceId !== undefined) body.destinationSourceId = destinationSourceId;
    if (chaos > 0 && drop === 0) delete body.id; // a missing id is a 400
    return body;
  });
}

function textContent(withNul: boolean, chaos: Chaos): fc.Arbitrary<unknown> {
  const markdown = fc.constantFrom(
    '**Great question!** Use `ingressClassName`.',
    '[a](',
    '```\ncode',
    '>'.repeat(2_000),
    '*'.repeat(5_000),
    '[x]('.repeat(500),
    '_a_ '.repeat(1_000),
    '<script>alert(1)</script>',
    '| a | b |\n|---|---|\n| 1 | 2 |',
    '# '.repeat(3_000),
    '![img](http://x/' + '('.repeat(2_000),
  );
  const value = fc.oneof(text(withNul, [fc.lorem({ maxCount: 40 }), markdown]), fc.constant(null));
  return chaotic(
    chaos,
    fc.oneof(
      fc.record({ type: fc.constantFrom('text', 'markdown', 'html', ''), value }, { requiredKeys: ['value'] }),
      text(withNul, [fc.lorem({ maxCount: 40 })]),
      fc.constant(null),
    ),
    wrongType,
    3,
  );
}

function activityBody(fixtures: Fixtures, withNul: boolean, chaos: Chaos): fc.Arbitrary<unknown> {
  const id = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 30 }).map((n) => `act-${n}`), weight: 6 }, { arbitrary: externalId(withNul, chaos), weight: 2 });
  const model = {
    id,
    activityType: activityType(chaos),
    user: chaotic(chaos, apiUser(fixtures, withNul, chaos), wrongType, 4),
    activityTitle: textContent(withNul, chaos),
    content: textContent(withNul, chaos),
    timestamp: timestamp(chaos),
    url: field(fc.oneof(text(withNul, [fc.webUrl()]), fc.constant(null)), chaos),
    tags: tags(fixtures, withNul, fixtures.activityTagId, chaos),
    parentActivity: chaotic(
      chaos,
      fc.oneof(fc.record({ id, activityType: fc.oneof(activityType(chaos), fc.constant(null), text(withNul)) }, { requiredKeys: ['id'] }), fc.constant(null)),
      wrongType,
      3,
    ),
    subSource: chaotic(
      chaos,
      fc.oneof(
        fc.record(
          { type: fc.constantFrom('name', 'id'), name: fc.oneof(text(withNul, [fc.constantFrom('#kubernetes', 'org/repo')]), fc.constant(null)) },
          { requiredKeys: ['name'] },
        ),
        text(withNul, [fc.constantFrom('#general', 'hearth/hearth')]),
        fc.constant(null),
      ),
      wrongType,
      3,
    ),
  };
  const destination = fc.option(
    chaotic(
      chaos,
      fc.constantFrom(fixtures.sourceId, String(fixtures.sourceId)),
      fc.oneof(fc.constantFrom(fixtures.otherSourceId, '0', 'abc', ' 1'), wrongType),
    ),
    { nil: undefined, freq: 3 },
  );
  return fc
    .tuple(fc.record(model, { requiredKeys: ['id', 'activityType', 'user'] }), unknownFields, destination, fc.nat(14))
    .map(([activity, extra, destinationSourceId, drop]) => {
      const body: Record<string, unknown> = { ...extra, ...activity };
      if (destinationSourceId !== undefined) body.destinationSourceId = destinationSourceId;
      if (chaos > 0 && drop === 0) delete body.id;
      if (chaos > 0 && drop === 1) delete body.activityType;
      if (chaos > 0 && drop === 2) delete body.user;
      return body;
    });
}

/** Bodies of every chaos level, most of them well-typed so that they reach the service and the database. */
function userBodies(fixtures: Fixtures, withNul: boolean) {
  return fc.oneof(
    { arbitrary: userBody(fixtures, withNul, 0), weight: 3 },
    { arbitrary: userBody(fixtures, withNul, 1), weight: 2 },
    { arbitrary: userBody(fixtures, withNul, 2), weight: 1 },
  );
}
function activityBodies(fixtures: Fixtures, withNul: boolean) {
  return fc.oneof(
    { arbitrary: activityBody(fixtures, withNul, 0), weight: 3 },
    { arbitrary: activityBody(fixtures, withNul, 1), weight: 2 },
    { arbitrary: activityBody(fixtures, withNul, 2), weight: 1 },
  );
}

/** Puts a NUL into one string (a value or a key) of the body, unless it has one already. */
function withOneNul(body: unknown, pick: number, at: number): unknown {
  if (hasNul(body)) return body;
  const copy = JSON.parse(JSON.stringify(body)) as unknown;
  const insert = (text: string) => `${text.slice(0, at % (text.length + 1))}\u0000${text.slice(at % (text.length + 1))}`;
  const strings = jsonPaths(copy).filter(
    (path) => path.length > 0 && typeof path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], copy) === 'string',
  );
  const path = strings[pick % Math.max(strings.length, 1)];
  if (path === undefined || copy === null || typeof copy !== 'object') {
    if (typeof copy === 'string') return insert(copy);
    return copy !== null && typeof copy === 'object' ? { ...copy, 'nul\u0000key': 1 } : copy;
  }
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], copy) as Record<string, string>;
  const key = path[path.length - 1]!;
  parent[key] = insert(parent[key]!);
  return copy;
}

/**
 * A well-formed body with one part changed: a value anywhere in it replaced with an arbitrary JSON value,
 * deleted, or the body wrapped or cut. Reaches further into the service than a wholly random body.
 */
function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(base, fc.nat(), fc.constantFrom('replace', 'delete', 'wrap', 'array'), fc.jsonValue({ maxDepth: 2 }))
    .map(([generated, pick, how, replacement]) => {
      // A copy: generated values may be shared (fc.constant), and mutating them would change later runs.
      const body = JSON.parse(JSON.stringify(generated)) as unknown;
      if (how === 'wrap') return { body };
      if (how === 'array') return [body];
      const paths = jsonPaths(body);
      const path = paths[pick % paths.length] ?? [];
      if (path.length === 0) return how === 'replace' ? replacement : body;
      const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], body) as Record<string, unknown>;
      const key = path[path.length - 1]!;
      if (how === 'delete') {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
      } else parent[key] = replacement;
      return body;
    });
}

function jsonPaths(value: unknown, prefix: string[] = []): string[][] {
  const paths = [prefix];
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) paths.push(...jsonPaths((value as Record<string, unknown>)[key], [...prefix, key]));
  }
  return paths;
}

/** fc.anything(), as the JSON a client would send of it (undefined and functions dropped, like JSON.stringify). */
const anythingAsJson = fc
  .anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true, withBoxedValues: true, withSparseArray: true })
  .map((value) => {
    const json = JSON.stringify(value);
    return json === undefined ? null : (JSON.parse(json) as unknown);
  });

// ---------------------------------------------------------------------------------------------------------
// Helpers on values

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => key.includes('\u0000') || hasNul(item));
  return false;
}

function stripNul(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '');
  if (Array.isArray(value)) return value.map(stripNul);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key.replaceAll('\u0000', ''), stripNul(item)]));
  }
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Properties whose text lands in a btree index, which the schemas limit (the sender's and activity IDs, subSource, companyName). */
const INDEXED_KEYS = new Set(['id', 'activityType', 'subSource', 'name', 'companyName']);
/** Within every one of those limits (the shortest is activityType's 100). */
const INDEXED_MAX = 100;

/**
 * Keeps indexed values within the schemas' length limits and takes out lone surrogates, so that most
 * well-formed pushes are accepted and reach the database; both limits are checked by the regression cases.
 */
function withinLimits(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    const text = value.replace(LONE_SURROGATE, '\uFFFD');
    return INDEXED_KEYS.has(key) && text.length > INDEXED_MAX ? text.slice(0, INDEXED_MAX).replace(LONE_SURROGATE, '\uFFFD') : text;
  }
  if (Array.isArray(value)) return value.map((item) => withinLimits(item, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name.replace(LONE_SURROGATE, '\uFFFD'), withinLimits(item, name)]));
  }
  return value;
}

/** Short enough to read in a failure report. */
function preview(text: string | undefined, max = 4_000): string {
  if (text === undefined) return '(no body)';
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

// ---------------------------------------------------------------------------------------------------------
// The tests

/**
 * Shrinking a failure with long strings can take minutes; past the time limit fast-check stops and reports
 * the smallest failing case found so far (each failure message carries the payload and the server's log).
 */
const RUN = { interruptAfterTimeLimit: 90_000, markInterruptAsFailure: false } as const;

const PUSH_ANSWERS = new Set([202, 400, 403, 404]);
const LOOKUP_ANSWERS = new Set([200, 400, 403, 404]);
const REMOVAL_ANSWERS = new Set([200, 400, 403, 404]);

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** The raw body, sent as application/json. */
  body?: string;
  token: string;
}

interface Answer {
  status: number;
  json: unknown;
}

describe.each(ENGINES)('ingestion fuzzing (%s)', (engine) => {
  let t: TestApp;
  /** The app again, over the same services, with a logger that keeps what a 5xx logs. */
  let app: HearthApp;
  let worker: Worker;
  let readToken: string;
  const fixtures = {} as Fixtures;
  const serverErrors: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(engine);
    app = await buildApp({
      services: t.services,
      publicUrl: TEST_PUBLIC_URL,
      logger: { level: 'error', stream: { write: (line: string) => void serverErrors.push(line) } },
    });
    worker = createWorker({ db: t.services.db, clock: systemClock, queue: t.services.jobs });
    readToken = await t.issueToken(['read']);
    const db = t.services.db;
    const { communityId } = t;
    fixtures.sourceId = t.sourceId;
    fixtures.otherSourceId = (await t.services.sources.create(cliWriter(communityId), { name: 'Discourse' })).id;
    const elsewhere = await t.services.communities.create('Elsewhere', cliActor());
    fixtures.foreignSourceId = (await t.services.sources.create(cliWriter(elsewhere.communityId), { name: 'Theirs' })).id;
    const tag = async (name: string, entityTypes: string[]) =>
      (await db.insertInto('tags').values({ community_id: communityId, name, entity_types: entityTypes }).returning('id').executeTakeFirstOrThrow()).id;
    fixtures.tagId = await tag('Speaker', ['member']);
    fixtures.activityTagId = await tag('Highlight', ['activity']);
    const make = async (name: string, valueType: string, extra: Record<string, unknown> = {}) =>
      await seedCustomField(t, { name, entity_types: ['contact'], value_type: valueType, ...extra }, communityId);
    fixtures.fields = {
      string: await make('Plan', 'string'),
      url: await make('Homepage', 'url'),
      int: await make('Seats', 'int'),
      number: await make('Score', 'number'),
      date: await make('Renewal', 'date'),
      boolean: await make('Champion', 'boolean'),
      enum: await make('Tier', 'enum', { enum_values: ['free', 'pro', 'enterprise'] }),
      multi: await make('Languages', 'enum', { enum_values: ['go', 'rust', 'ts'], multivalue: true }),
      restricted: await make('Secret', 'string'),
      deleted: await make('Gone', 'string', { deleted_at: new Date() }),
      organization: await seedCustomField(t, { name: 'Industry', entity_types: ['organization'], value_type: 'string' }, communityId),
    };
    await db
      .insertInto('custom_field_writers')
      .values({ community_id: communityId, custom_field_id: fixtures.fields.restricted, source_id: fixtures.otherSourceId })
      .execute();
    await t.services.activityTypes.add(cliWriter(communityId), { id: 'fuzz_custom_type', displayName: 'Fuzz custom type' });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  /** Sends one request and checks the answer: an allowed status, a core 400 body, and a 400 for a NUL. */
  async function call(request: Call, allowed: ReadonlySet<number>, parsedBody?: unknown): Promise<Answer> {
    const logged = serverErrors.length;
    const response = await app.inject({
      method: request.method,
      url: request.url,
      headers: { authorization: `Bearer ${request.token}`, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(request.body === undefined ? {} : { payload: request.body }),
    });
    const describeCall = () =>
      `${request.method} ${request.url}\nbody: ${preview(request.body)}\n→ ${response.statusCode} ${preview(response.body, 1_000)}` +
      `\nserver log:\n${serverErrors.slice(logged).join('') || '(nothing logged)'}`;
    if (response.statusCode >= 500) throw new Error(`a ${response.statusCode}:\n${describeCall()}`);
    if (!allowed.has(response.statusCode)) throw new Error(`unexpected status ${response.statusCode}:\n${describeCall()}`);
    let json: unknown = null;
    try {
      json = response.json();
    } catch {
      throw new Error(`an answer that is not JSON:\n${describeCall()}`);
    }
    if (response.statusCode === 400) {
      const body = json as { reason?: unknown; docs?: unknown; detail?: unknown };
      const ok =
        typeof body.reason === 'string' && body.reason !== '' && typeof body.docs === 'string' && typeof body.detail === 'string' && body.detail.trim() !== '';
      if (!ok) throw new Error(`a 400 without the core body {reason, docs, detail}:\n${describeCall()}`);
    }
    const authorized = request.token === t.token;
    const nul = hasNul(parsedBody) || /%00/i.test(request.url);
    if (authorized && nul && response.statusCode !== 400) throw new Error(`a NUL character that was not a 400:\n${describeCall()}`);
    return { status: response.statusCode, json };
  }

  /** Every identity and merge points at a live contact; every contact has a name; no erasure job failed. */
  async function checkInvariants() {
    const db = t.services.db;
    const { rows } = await sql<{ what: string; n: string | number }>`
      select 'identity without contact' as what, count(*) as n from contact_identities i
        where not exists (select 1 from contacts c where c.community_id = i.community_id and c.id = i.contact_id)
      union all
      select 'merge survivor missing', count(*) from contact_merges m
        where not exists (select 1 from contacts c where c.community_id = m.community_id and c.id = m.survivor_id)
      union all
      select 'merged contact still present', count(*) from contact_merges m
        where exists (select 1 from contacts c where c.community_id = m.community_id and c.id = m.merged_id)
      union all
      select 'contact with an empty name', count(*) from contacts where name ~ '^[[:space:]]*$'
      union all
      select 'source profile without contact', count(*) from source_profiles p
        where not exists (select 1 from contacts c where c.community_id = p.community_id and c.id = p.contact_id)
      union all
      select 'activity without contact', count(*) from activities a
        where not exists (select 1 from contacts c where c.community_id = a.community_id and c.id = a.contact_id)
      union all
      select 'failed job', count(*) from jobs where error is not null
    `.execute(db);
    const broken = rows.filter((row) => Number(row.n) > 0);
    if (broken.some((row) => row.what === 'failed job')) {
      const jobs = await db
        .selectFrom('jobs as j')
        .leftJoin('removal_requests as r', (join) => join.on(sql<boolean>`r.community_id = j.community_id and r.id = (j.payload->>'removalRequestId')::bigint`))
        .select(['j.kind', 'j.status', 'j.attempts', 'j.error', 'j.payload', 'r.email'])
        .where('j.error', 'is not', null)
        .limit(5)
        .execute();
      expect.fail(`a background job failed:\n${JSON.stringify(jobs, null, 2)}`);
    }
    expect(broken, JSON.stringify(broken)).toEqual([]);
  }

  /** Where a push may be sent: mostly the real sources, sometimes a foreign, missing or malformed one. */
  const sourcePath = () =>
    fc.oneof(
      { arbitrary: fc.constant(String(fixtures.sourceId)), weight: 12 },
      { arbitrary: fc.constant(String(fixtures.otherSourceId)), weight: 3 },
      {
        arbitrary: fc.constantFrom(
          `sig_${fixtures.sourceId}`,
          String(fixtures.foreignSourceId),
          '999999',
          '0',
          '-1',
          '1.5',
          '99999999999999999999',
          'abc',
          '%20',
          '%E2%82%AC',
          '%00',
        ),
        weight: 2,
      },
    );
  const token = () => fc.oneof({ arbitrary: fc.constant('write'), weight: 19 }, { arbitrary: fc.constant('read'), weight: 1 });
  const tokenOf = (kind: string) => (kind === 'write' ? t.token : readToken);

  async function push(route: 'user' | 'activity', source: string, body: string, tokenKind: string) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    return call({ method: 'POST', url: `/community/v1/source/${source}/${route}`, body, token: tokenOf(tokenKind) }, PUSH_ANSWERS, parsed);
  }

  it('never answers a 5xx to arbitrary or mutated JSON bodies', { timeout: 180_000 }, async () => {
    const json = fc
      .oneof(
        { arbitrary: fc.jsonValue(), weight: 3 },
        { arbitrary: anythingAsJson, weight: 2 },
        { arbitrary: mutated(userBodies(fixtures, true)), weight: 3 },
        { arbitrary: mutated(activityBodies(fixtures, true)), weight: 3 },
      )
      .map((value) => JSON.stringify(value));
    const raw = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(
        '',
        '{',
        '{"id":',
        '{"id": "a",}',
        '{"__proto__": {"polluted": 1}, "id": "p"}',
        '{"constructor": {"prototype": {"x": 1}}, "id": "c"}',
        'null',
        '[]',
        '"str"',
        '1e999',
        '{"id": "x", "email": "\\u0000"}',
      ),
    );
    const body = fc.oneof({ arbitrary: json, weight: 11 }, { arbitrary: raw, weight: 1 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('user' as const, 'activity' as const), sourcePath(), body, token(), async (route, source, payload, tokenKind) => {
        await push(route, source, payload, tokenKind);
        await checkInvariants();
      }),
      { ...RUN, numRuns: 300 },
    );
  });

  for (const withNul of [false, true]) {
    it(
      `never answers a 5xx to well-formed users and activities with realistic and junk values (${withNul ? 'with' : 'without'} NUL)`,
      { timeout: 180_000 },
      async () => {
        let accepted = 0;
        const body = fc.oneof(
          userBodies(fixtures, withNul).map((value) => ['user' as const, value] as const),
          activityBodies(fixtures, withNul).map((value) => ['activity' as const, value] as const),
        );
        await fc.assert(
          fc.asyncProperty(body, sourcePath(), token(), fc.nat(), fc.nat(), async ([route, value], source, tokenKind, pick, at) => {
            const payload = withNul ? withOneNul(withinLimits(value), pick, at) : withinLimits(stripNul(value));
            const answer = await push(route, source, JSON.stringify(payload), tokenKind);
            if (answer.status === 202) accepted += 1;
            await checkInvariants();
          }),
          { ...RUN, numRuns: 150 },
        );
        // The bodies are meant to reach the service and the database, not only the schema check.
        if (!withNul) expect(accepted, 'pushes answered 202 of 150').toBeGreaterThanOrEqual(30);
      },
    );
  }

  describe('a small pool of identities, pushed, looked up and erased in random orders', () => {
    /** One person of the pool, in a run's own namespace: every way of writing each identity. */
    function person(run: string, index: number) {
      const p = `p${index}${run}`;
      const login = `gh-${p}`;
      return {
        email: [`${p}@example.org`, `${p.toUpperCase()}@Example.ORG`, ` "Person ${index}" <${p}@example.org> `, `mailto:${p}@example.org`],
        gmail: [`${p}.mail@gmail.com`, `${p.split('').join('.')}mail+fuzz@gmail.com`, `${p.toUpperCase()}MAIL@googlemail.com`],
        github: [login, `@${login}`, `https://github.com/${login.toUpperCase()}/`, { type: 'handle', value: `github.com/${login}` }],
        noreply: [`12345+${login}@users.noreply.github.com`],
        twitter: [`tw_${p}`, `@TW_${p}`, `https://x.com/tw_${p}`, { type: 'handle', value: `twitter.com/tw_${p}` }],
        linkedin: [`li-${p}`, `https://www.linkedin.com/in/li-${p}/`],
        discord: [`dc_${p}`, `dc_${p}#0`, { username: `DC_${p}`, discriminator: 0 }],
      };
    }
    type Kind = keyof ReturnType<typeof person>;
    const KINDS: Kind[] = ['email', 'gmail', 'github', 'noreply', 'twitter', 'linkedin', 'discord'];
    const POOL = 4;

    const naming = fc.record({ person: fc.nat(POOL - 1), kind: fc.constantFrom(...KINDS), variant: fc.nat(5) });
    const pushCommand = fc.record({
      type: fc.constantFrom('user' as const, 'activity' as const),
      source: fc.nat(1),
      sender: fc.nat(7),
      names: fc.array(naming, { minLength: 1, maxLength: 4 }),
      fullName: fc.option(fc.constantFrom(...NAMES, 'n/a', '', 'Zoë 🦄', '-'), { nil: undefined }),
      companyDomain: fc.option(fc.constantFrom('initech.example', 'gmail.com', 'https://eng.globex.example.co.uk'), { nil: undefined }),
      activity: fc.nat(9),
      parent: fc.option(fc.nat(9), { nil: undefined }),
      activityType: fc.constantFrom('tweet', 'commented_replied', 'made_post_topic', 'fuzz_custom_type'),
      badCustomField: fc.nat(6).map((n) => n === 0),
    });
    const deleteCommand = fc.record({ type: fc.constant('delete' as const), person: fc.nat(POOL - 1), variant: fc.nat(3), inQuery: fc.boolean() });
    const lookupCommand = fc.record({ type: fc.constant('lookup' as const), names: fc.array(naming, { minLength: 1, maxLength: 3 }) });
    const command = fc.oneof({ arbitrary: pushCommand, weight: 10 }, { arbitrary: lookupCommand, weight: 2 }, { arbitrary: deleteCommand, weight: 1 });
    /** Commands in groups; the commands of a group are sent at once (on PostgreSQL they race). */
    const batch = fc.array(fc.array(command, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 });

    let runs = 0;

    it('merges under any order and concurrency, and the data stays consistent', { timeout: 240_000 }, async () => {
      const merges = () =>
        t.services.db
          .selectFrom('contact_merges')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('community_id', '=', t.communityId)
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.n));
      const mergesBefore = await merges();
      await fc.assert(
        fc.asyncProperty(batch, async (groups) => {
          // Each run (and each replay while shrinking) has identities of its own.
          const run = `r${(++runs).toString(36)}`;
          const pool = Array.from({ length: POOL }, (_, index) => person(run, index));
          const identityOf = (n: { person: number; kind: Kind; variant: number }) => {
            const variants = pool[n.person]![n.kind];
            return variants[n.variant % variants.length]!;
          };
          const contactIds: string[] = [];

          const execute = async (cmd: (typeof groups)[number][number]) => {
            if (cmd.type === 'lookup') {
              const query = new URLSearchParams();
              for (const n of cmd.names) {
                if (n.kind === 'discord') continue; // not a lookup key
                const value = identityOf(n);
                const key = n.kind === 'gmail' || n.kind === 'noreply' ? 'email' : n.kind;
                query.append(key, typeof value === 'string' ? value : String((value as { value?: unknown }).value));
              }
              await call({ method: 'GET', url: `/community/v1/members?${query}`, token: t.token }, LOOKUP_ANSWERS);
              return;
            }
            if (cmd.type === 'delete') {
              const address = pool[cmd.person]![cmd.variant % 2 === 0 ? 'email' : 'gmail'][cmd.variant % 3]!;
              const url = cmd.inQuery ? `/community/v1/user?email=${encodeURIComponent(address)}` : `/community/v1/user/${encodeURIComponent(address)}`;
              await call({ method: 'DELETE', url, token: t.token }, REMOVAL_ANSWERS);
              return;
            }
            const user: Record<string, unknown> = { id: `s${cmd.sender}-${run}` };
            for (const n of cmd.names) {
              const key = n.kind === 'gmail' || n.kind === 'noreply' ? 'email' : n.kind;
              user[key] = identityOf(n);
            }
            if (cmd.fullName !== undefined) user.fullName = cmd.fullName;
            if (cmd.companyDomain !== undefined) user.companyDomain = cmd.companyDomain;
            if (cmd.badCustomField) user.customFields = [{ id: fixtures.fields.int, value: { type: 'int', value: 'many' } }];
            const source = cmd.source === 0 ? fixtures.sourceId : fixtures.otherSourceId;
            const body =
              cmd.type === 'user'
                ? user
                : {
                    id: `a${cmd.activity}-${run}`,
                    activityType: cmd.activityType,
                    user,
                    content: { type: 'markdown', value: `Reply **${cmd.activity}**` },
                    ...(cmd.parent === undefined ? {} : { parentActivity: { id: `a${cmd.parent}-${run}`, activityType: cmd.activityType } }),
                  };
            const answer = await call(
              { method: 'POST', url: `/community/v1/source/${source}/${cmd.type}`, body: JSON.stringify(body), token: t.token },
              PUSH_ANSWERS,
              body,
            );
            const contactId = (answer.json as { contactId?: string | null }).contactId;
            // A push about an erased person is answered 202 storing nothing before its custom fields are checked.
            if (cmd.badCustomField && !(answer.status === 202 && contactId === null)) expect(answer.status, JSON.stringify({ body, answer })).toBe(400);
            if (!cmd.badCustomField) expect(answer.status, JSON.stringify({ body, answer })).toBe(202);
            if (contactId) contactIds.push(contactId);
          };

          for (const group of groups) await Promise.all(group.map(execute));
          // Erase what was asked to be erased, then check the whole database.
          await worker.runUntilIdle();
          await checkInvariants();
          // Every contact ID a push answered still leads to a live contact, through merges.
          for (const contactId of contactIds) {
            const resolved = await t.get(`/api/v2/contacts/${contactId}`);
            expect(resolved.statusCode, `${contactId}: ${resolved.body}`).toBe(200);
          }
        }),
        { ...RUN, numRuns: 80 },
      );
      // The pool is small enough that pushes naming two people's identities merge them.
      expect(await merges()).toBeGreaterThan(mergesBefore);
    });
  });

  it('never answers a 5xx to lookups and removal requests with random values', { timeout: 180_000 }, async () => {
    const value = fc.oneof(
      { arbitrary: emailString, weight: 3 },
      { arbitrary: handleString, weight: 2 },
      { arbitrary: text(true), weight: 3 },
      { arbitrary: fc.constantFrom('%', '%zz', '%C3%28', '%E0%A4%A', '..', '/', '?', '#', '+', 'a+b@example.org'), weight: 1 },
    );
    const lookup = fc.record({
      type: fc.constant('lookup' as const),
      params: fc.array(
        fc.tuple(
          fc.oneof({ arbitrary: fc.constantFrom('email', 'twitter', 'github', 'linkedin'), weight: 8 }, { arbitrary: fc.string({ maxLength: 8 }), weight: 1 }),
          value,
        ),
        { maxLength: 4 },
      ),
      raw: fc.boolean(),
    });
    const removal = fc.record({ type: fc.constant('delete' as const), address: value, inQuery: fc.boolean(), raw: fc.boolean() });
    /**
     * Percent-encodes; in raw mode only what would break the URL itself, so that `+` and, in a query, `%`
     * and invalid escapes such as `%C3%28` reach the server as typed. In a path they stay encoded (bug 2).
     * A lone surrogate cannot be percent-encoded: it is sent as U+FFFD.
     */
    const escape = (c: string) => (/^[\uD800-\uDFFF]$/.test(c) ? '%EF%BF%BD' : encodeURIComponent(c));
    const safeEncode = (text: string, raw: boolean, inPath = false) =>
      text.replace(
        raw ? (inPath ? /[\s#?&/%\p{Cc}\u0080-\u{10FFFF}\uD800-\uDFFF]/gu : /[\s#?&/\p{Cc}\u0080-\u{10FFFF}\uD800-\uDFFF]/gu) : /[^A-Za-z0-9\-_.!~*'()]/gu,
        escape,
      );
    await fc.assert(
      fc.asyncProperty(fc.oneof(lookup, removal), token(), async (request, tokenKind) => {
        if (request.type === 'lookup') {
          const query = request.params.map(([key, text]) => `${safeEncode(key, false)}=${safeEncode(text, request.raw)}`).join('&');
          await call({ method: 'GET', url: `/community/v1/members?${query}`, token: tokenOf(tokenKind) }, LOOKUP_ANSWERS, request.params);
        } else {
          // Bug 5: the erasure job of a GitHub noreply address always fails; another domain stands in for it.
          const address = request.address.replace(/users\.noreply\.github\.com/gi, 'users.noreply.example.com');
          const inPath = safeEncode(address, request.raw, true);
          // Bug 3: a path parameter over 100 characters is Fastify's 414; such an address goes in the query.
          const url = request.inQuery || inPath.length > 100 ? `/community/v1/user?email=${safeEncode(address, request.raw)}` : `/community/v1/user/${inPath}`;
          await call({ method: 'DELETE', url, token: tokenOf(tokenKind) }, REMOVAL_ANSWERS, address);
        }
      }),
      { ...RUN, numRuns: 200 },
    );
    await worker.runUntilIdle();
    await checkInvariants();
  });

  /**
   * Faults this fuzzing found, each fixed and kept here as a regression case.
   */
  describe('faults found by fuzzing', () => {
    const pushRaw = (route: 'user' | 'activity', body: string) => push(route, String(fixtures.sourceId), body, 'write');
    /** Printable ASCII that does not compress: PostgreSQL stores and indexes it as it is. */
    const incompressible = (length: number, seed: number) =>
      Array.from({ length }, (_, i) => String.fromCharCode(33 + ((seed * 7_919 + i * 104_729 + ((i * i) % 7_907)) % 94))).join('');

    // Bug 1. A lone UTF-16 surrogate ("\ud800" in the JSON) in any ApiUser field, or in a custom field's
    // value, is a 500: PostgreSQL 22P02 "invalid input syntax for type json: Unicode low surrogate must
    // follow a high surrogate". The pushed fields go to source_profiles.fields (jsonb) as JSON.stringify(...)
    // in src/modules/identity/identity.repository.ts:62 (upsertSourceProfile), custom field values likewise
    // in src/modules/custom-fields/custom-field.repository.ts:41 (writeValues); JSON.stringify writes the
    // surrogate as the escape \ud800, which jsonb refuses. The request check in src/app.ts:72 (the
    // preValidation hook, src/http/validation.ts findNulCharacter) refuses NUL only. Text columns (activity
    // content, tag names, …) take the same value without complaint (the driver sends U+FFFD).
    it('bug 1: a lone surrogate in a user field is not a 500', async () => {
      await pushRaw('user', '{"id": "surrogate-1", "titleAtCompany": "\\ud800"}');
    });
    it("bug 1: a lone surrogate in the sender's id of an activity's user is not a 500", async () => {
      await pushRaw('activity', '{"id": "surrogate-2", "activityType": "tweet", "user": {"id": "x\\udc00"}}');
    });
    it('bug 1: a lone surrogate in a custom field value is not a 500', async () => {
      await pushRaw('user', JSON.stringify({ id: 'surrogate-3', customFields: [{ id: fixtures.fields.string, value: { type: 'string', value: '\uD800' } }] }));
    });

    // Bug 4. A value of more than about 2,700 bytes that does not compress, in a column with a btree index,
    // is a 500: PostgreSQL 54000 "index row size … exceeds btree version 4 maximum 2704". No length limit
    // on: the sender's `id` (source_profiles_pkey; String(user.id).trim() in
    // src/modules/ingestion/pushed-person.ts:146), the activity `id` (activities_dedup;
    // src/modules/ingestion/ingestion.service.ts:95), parentActivity.id and .activityType
    // (activities_pending_parent; ingestion.service.ts:107), subSource (sub_sources_name;
    // ingestion.service.ts:106, 115), and companyName when a new organization is made (organizations_name;
    // src/modules/ingestion/user-push.ts:134). The schemas (src/modules/ingestion/ingestion.schemas.ts) set
    // no maxLength.
    it('bug 4: a 3,000-character sender id is not a 500', async () => {
      await pushRaw('user', JSON.stringify({ id: incompressible(3_000, 1) }));
    });
    it('bug 4: a 3,000-character activity id is not a 500', async () => {
      await pushRaw('activity', JSON.stringify({ id: incompressible(3_000, 2), activityType: 'tweet', user: { id: 'long-1' } }));
    });
    it('bug 4: a 3,000-character parentActivity id is not a 500', async () => {
      await pushRaw(
        'activity',
        JSON.stringify({ id: 'long-parent', activityType: 'tweet', user: { id: 'long-2' }, parentActivity: { id: incompressible(3_000, 3) } }),
      );
    });
    it('bug 4: a 3,000-character subSource is not a 500', async () => {
      await pushRaw('activity', JSON.stringify({ id: 'long-sub', activityType: 'tweet', user: { id: 'long-3' }, subSource: incompressible(3_000, 4) }));
    });
    it('bug 4: a 3,000-character companyName with a new companyDomain is not a 500', async () => {
      await pushRaw('user', JSON.stringify({ id: 'long-4', companyDomain: 'long-company-name.com', companyName: incompressible(3_000, 5) }));
    });

    // Bug 6. The same custom field twice in one push, both values fitting, is a 500: PostgreSQL 21000 "ON
    // CONFLICT DO UPDATE command cannot affect row a second time". checkCustomFieldWrites
    // (src/modules/custom-fields/custom-field-writes.ts:30-43, called by checkCustomFields in
    // src/modules/ingestion/user-push.ts:151) keeps every entry, and writeValues inserts them all in one
    // statement with ON CONFLICT DO UPDATE (src/modules/custom-fields/custom-field.repository.ts:38-43).
    // A client repeating a field (or giving 3 and "cf_3") should get a 400 naming it, or the last value.
    it('bug 6: the same custom field twice in one push is not a 500', async () => {
      const id = fixtures.fields.string;
      await pushRaw(
        'user',
        JSON.stringify({
          id: 'twice',
          customFields: [
            { id, value: { type: 'string', value: 'a' } },
            { id: String(id), value: { type: 'string', value: 'b' } },
          ],
        }),
      );
    });

    // Bug 2. A path with a malformed percent escape gets Fastify's own 400 body {error, code: "FST_ERR_BAD_URL",
    // message, statusCode}, not the core {reason, docs, detail}: src/app.ts:45 creates Fastify without
    // `frameworkErrors`, so the router's errors never reach the error handler (src/http/error-handler.ts).
    it('bug 2: DELETE /community/v1/user/% is a 400 with the core body', async () => {
      await call({ method: 'DELETE', url: '/community/v1/user/%', token: t.token }, REMOVAL_ANSWERS);
    });
    it('bug 2: POST /community/v1/source/%/user is a 400 with the core body', async () => {
      await call({ method: 'POST', url: '/community/v1/source/%/user', body: '{"id": "bad-url"}', token: t.token }, PUSH_ANSWERS);
    });

    // Bug 3. DELETE /community/v1/user/{email} with a path parameter longer than 100 characters is a 414
    // with Fastify's body {code: "FST_ERR_MAX_PARAM_LENGTH"}: find-my-way's default maxParamLength (100);
    // src/app.ts:45 sets no other. A valid address may have 254 characters (and more once percent-encoded),
    // so such a person cannot ask for erasure by the path form. (GET /community/v1/user/{email} alike.)
    it('bug 3: DELETE /community/v1/user/{a valid 113-character address} is accepted', async () => {
      const address = `${'a'.repeat(60)}@${'b'.repeat(40)}.example.com`;
      const answer = await call({ method: 'DELETE', url: `/community/v1/user/${encodeURIComponent(address)}`, token: t.token }, REMOVAL_ANSWERS);
      expect(answer.status).toBe(200);
    });

    // Bug 5 (not a 5xx; found by the "no failed job" invariant). DELETE /community/v1/user/{address} with a
    // GitHub noreply address (12345+octocat@users.noreply.github.com) answers 200, but its erasure job fails
    // on every attempt and the person is never erased: requestRemoval stores the identity's display value,
    // which for a noreply address is the GitHub login ("octocat"), as the request's email
    // (src/modules/privacy/privacy.service.ts:95), and the job reads it back with normalizeEmail
    // (privacy.service.ts:56-57), which refuses a bare login: "removal request N holds an address that is
    // not valid". After 20 attempts (about half a day) the request is marked failed, past no deadline check.
    it('bug 5: a removal request for a GitHub noreply address erases the person', async () => {
      const pushed = await pushRaw('user', JSON.stringify({ id: 'noreply-erase', fullName: 'Erase Me', github: 'noreply-erase-me' }));
      const contactId = Number((pushed.json as { contactId: string }).contactId.slice(2));
      const address = encodeURIComponent('4242+noreply-erase-me@users.noreply.github.com');
      try {
        expect((await call({ method: 'DELETE', url: `/community/v1/user/${address}`, token: t.token }, REMOVAL_ANSWERS)).status).toBe(200);
        await worker.runUntilIdle();
        const contact = await t.services.db
          .selectFrom('contacts')
          .select('name')
          .where('community_id', '=', t.communityId)
          .where('id', '=', contactId)
          .executeTakeFirstOrThrow();
        expect(contact.name).toBe('Anonymized contact');
      } finally {
        // The failed job would otherwise trip the "no failed job" invariant of any later batch.
        await t.services.db.deleteFrom('jobs').where('community_id', '=', t.communityId).where('error', 'is not', null).execute();
      }
    });
  });
});

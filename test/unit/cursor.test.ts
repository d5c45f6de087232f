import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CursorCodec, type CursorBinding, type CursorPosition } from '../../src/core/cursor.ts';
import { HearthError } from '../../src/core/errors.ts';

const SECRET = 'unit-test secret';
const codec = new CursorCodec(SECRET);
const binding: CursorBinding = {
  community: 1,
  list: 'contacts',
  sort: 'latest_activity',
  direction: 'desc',
  filters: { segment: 's_4', tags: ['a', 'b'], since: '2024-01-01', nested: { x: 1, y: [true, null] } },
};
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A cursor's position, as a list reads it: opened (signature checked), then bound to the list. */
const decode = (using: CursorCodec, cursor: string, as: CursorBinding) => using.bind(using.open(cursor), as);

/** The HearthError that decoding throws, or null when the cursor is accepted. */
function refusal(cursor: string, as: CursorBinding = binding, using: CursorCodec = codec): HearthError | null {
  try {
    using.bind(using.open(cursor), as);
    return null;
  } catch (error) {
    if (!(error instanceof HearthError)) throw error;
    return error;
  }
}

function expectRefused(cursor: string, as: CursorBinding = binding, using: CursorCodec = codec) {
  const error = refusal(cursor, as, using);
  expect(error, `cursor ${JSON.stringify(cursor)} was accepted`).not.toBeNull();
  expect(error!.kind).toBe('invalid');
  expect(error!.code).toBe('invalid_cursor');
  expect(error!.message).toEqual(expect.any(String));
}

const replaceAt = (text: string, index: number, char: string) => text.slice(0, index) + char + text.slice(index + 1);

describe('CursorCodec', () => {
  describe('round trip', () => {
    it.each<[string, CursorPosition]>([
      ['an ID alone', ['42']],
      ['a microsecond timestamp and an ID', ['2024-02-29 12:34:56.123456+00', '7']],
      ['a null sort value', [null, '9007199254740991']],
      ['mixed JSON scalars', [1.5, -3, true, false, null, '']],
      ['text with dots, quotes and non-ASCII', ['a.b.c', '"quoted"', 'Zoë ✓ 🔥', '\u0000\n']],
      ['no values', []],
    ])('returns %s unchanged', (_name, position) => {
      const cursor = codec.encode(binding, position);
      expect(decode(codec, cursor, binding)).toEqual(position);
    });

    it('returns any position unchanged (property)', () => {
      const value = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
      fc.assert(
        fc.property(fc.array(value, { maxLength: 6 }), (position) => {
          // JSON has no negative zero; a cursor does not need one.
          const expected = position.map((item) => (Object.is(item, -0) ? 0 : item));
          expect(decode(codec, codec.encode(binding, position), binding)).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });

    it('is URL-safe text of a body and a signature', () => {
      const cursor = codec.encode(binding, ['2024-02-29 12:34:56.123456+00', '/+?&=#', null]);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    });

    it('is accepted by another codec with the same secret (another process of the deployment)', () => {
      const cursor = codec.encode(binding, ['5']);
      expect(decode(new CursorCodec(SECRET), cursor, binding)).toEqual(['5']);
    });

    it("does not depend on the order of the filters' keys, at any depth", () => {
      const cursor = codec.encode(binding, ['5']);
      const reordered: CursorBinding = {
        filters: { nested: { y: [true, null], x: 1 }, since: '2024-01-01', tags: ['a', 'b'], segment: 's_4' },
        direction: 'desc',
        sort: 'latest_activity',
        list: 'contacts',
        community: 1,
      };
      expect(decode(codec, cursor, reordered)).toEqual(['5']);
    });

    it('treats an undefined filter like an absent one', () => {
      const cursor = codec.encode({ ...binding, filters: { a: 1, b: undefined } }, ['5']);
      expect(decode(codec, cursor, { ...binding, filters: { a: 1 } })).toEqual(['5']);
    });
  });

  describe('secret', () => {
    it('a codec with a different secret refuses the cursor', () => {
      const cursor = codec.encode(binding, ['5']);
      expectRefused(cursor, binding, new CursorCodec('another secret'));
      expectRefused(cursor, binding, new CursorCodec(`${SECRET} `));
    });

    it('the cursor is refused whatever position a foreign codec put in it', () => {
      const foreign = new CursorCodec('attacker');
      for (const position of [['5'], [], [null, '1']]) expectRefused(foreign.encode(binding, position));
    });
  });

  describe('binding', () => {
    const cursor = codec.encode(binding, ['2024-01-01 00:00:00+00', '5']);

    it.each<[string, CursorBinding]>([
      ['another community', { ...binding, community: 2 }],
      ['another list', { ...binding, list: 'organizations' }],
      ['another sort', { ...binding, sort: 'id' }],
      ['the other direction', { ...binding, direction: 'asc' }],
      ['no filters', { ...binding, filters: {} }],
      ['a changed filter value', { ...binding, filters: { ...binding.filters, segment: 's_5' } }],
      ['a filter value of another type', { ...binding, filters: { ...binding.filters, nested: { x: '1', y: [true, null] } } }],
      ['an added filter', { ...binding, filters: { ...binding.filters, extra: null } }],
      ['a removed filter', { ...binding, filters: { segment: 's_4', tags: ['a', 'b'], since: '2024-01-01' } }],
      ['a changed nested filter value', { ...binding, filters: { ...binding.filters, nested: { x: 1, y: [true, false] } } }],
      ['an extra array item', { ...binding, filters: { ...binding.filters, tags: ['a', 'b', 'c'] } }],
      ['a filter renamed', { ...binding, filters: { segments: 's_4', tags: ['a', 'b'], since: '2024-01-01', nested: { x: 1, y: [true, null] } } }],
    ])('is refused with %s', (_name, other) => {
      expectRefused(cursor, other);
      // The same codec still accepts it with its own binding.
      expect(decode(codec, cursor, binding)).toEqual(['2024-01-01 00:00:00+00', '5']);
    });

    it('says that the cursor belongs to another query', () => {
      expect(refusal(cursor, { ...binding, direction: 'asc' })!.message).toMatch(/different sort, direction or filter/);
    });
  });

  describe('tampering', () => {
    const cursor = codec.encode(binding, ['2024-01-01 00:00:00.000001+00', '12345']);
    const [body, signature] = cursor.split('.') as [string, string];

    it('is detected for every one-character change of the body', () => {
      for (let index = 0; index < body.length; index++) {
        for (const char of BASE64URL) {
          if (char === body[index]) continue;
          expectRefused(`${replaceAt(body, index, char)}.${signature}`);
        }
      }
    });

    it('is detected for every one-character change of the signature, the last character included', () => {
      for (let index = 0; index < signature.length; index++) {
        for (const char of BASE64URL) {
          if (char === signature[index]) continue;
          expectRefused(`${body}.${replaceAt(signature, index, char)}`);
        }
      }
    });

    it('is detected when characters are added to the signature', () => {
      for (const extra of ['=', '==', '!', ' ', 'A', '%']) {
        expectRefused(`${cursor}${extra}`);
        expectRefused(`${body}.${signature.slice(0, 5)}${extra}${signature.slice(5)}`);
      }
    });

    it("is detected when a validly signed body is paired with another cursor's signature", () => {
      const other = codec.encode(binding, ['2024-01-01 00:00:00.000002+00', '12345']);
      expectRefused(`${other.split('.')[0]}.${signature}`);
      expectRefused(`${body}.${other.split('.')[1]}`);
    });

    it('is detected when the position is rewritten and re-encoded without the key', () => {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { b: string; p: CursorPosition };
      expect(payload.p).toEqual(['2024-01-01 00:00:00.000001+00', '12345']);
      const forged = Buffer.from(JSON.stringify({ ...payload, p: ['2024-01-01 00:00:00.000001+00', '1'] })).toString('base64url');
      expectRefused(`${forged}.${signature}`);
    });

    it.each([
      ['empty', ''],
      ['a dot', '.'],
      ['the body alone', body],
      ['the body and a dot', `${body}.`],
      ['the signature alone', `.${signature}`],
      ['a truncated signature', cursor.slice(0, -1)],
      ['a truncated body', `${body.slice(0, -2)}.${signature}`],
      ['three parts', `${cursor}.${signature}`],
      ['garbage', 'not a cursor'],
      ['garbage with a dot', 'abc.def'],
      ['JSON', '{"b":"x","p":[1]}'],
    ])('refuses %s', (_name, value) => {
      expectRefused(value);
    });
  });
});

import { describe, expect, it } from 'vitest';
import { jsonRow, JsonRowError } from '../../src/core/json-rows.ts';

describe('jsonRow', () => {
  const parse = jsonRow('example', { id: 'integer', parent: 'integer or null', name: 'string', note: 'string or null', done: 'boolean' });

  it('returns a row of its shape as it is, typed', () => {
    const row = { id: 7, parent: null, name: 'a', note: null, done: false };
    expect(parse(row)).toBe(row);
    expect(parse({ id: 8, parent: 7, name: 'b', note: 'n', done: true })).toEqual({ id: 8, parent: 7, name: 'b', note: 'n', done: true });
  });

  it('refuses a row whose field has another JSON type, or none, naming the shape and the field', () => {
    const good = { id: 7, parent: null, name: 'a', note: null, done: false };
    expect(() => parse({ ...good, id: '7' })).toThrow(new JsonRowError('example: id is "7", not integer'));
    expect(() => parse({ ...good, id: 1.5 })).toThrow('example: id is 1.5, not integer');
    expect(() => parse({ ...good, name: null })).toThrow('example: name is null, not string');
    expect(() => parse({ ...good, done: undefined })).toThrow('example: done is missing, not boolean');
    expect(() => parse({ ...good, parent: 2 ** 53 })).toThrow('not integer or null');
  });
});

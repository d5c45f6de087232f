import { describe, expect, it } from 'vitest';
import { findInvalidText } from '../../src/core/validation.ts';

describe('findInvalidText', () => {
  it('names the first bad text in document order, keys included', () => {
    expect(findInvalidText({ a: 'ok', b: ['fine', 'nul\u0000'], c: '\ud800' })).toEqual({ path: 'b[1]', problem: expect.stringMatching(/NUL/) });
    expect(findInvalidText({ ok: 1, ['bad\ud800key']: 1 })).toEqual({ path: '(value)', problem: expect.stringMatching(/surrogate/) });
    expect(findInvalidText({ nested: { deeper: [{ x: '\udc00' }] } })).toEqual({ path: 'nested.deeper[0].x', problem: expect.any(String) });
    expect(findInvalidText({ fine: ['a', { b: 'c' }], emoji: '😀' })).toBeNull();
  });

  it('walks 100,000 levels without exhausting the call stack', () => {
    let deep: unknown = 'bottom\u0000';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(findInvalidText(deep)?.problem).toMatch(/NUL/);
  });
});

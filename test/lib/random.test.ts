import { describe, expect, it } from 'vitest';
import { randomBase64url, randomCharacters } from '../../src/lib/random.js';

describe('random values', () => {
  it('are never handed out twice, across refills of the pool', () => {
    // 3,000 draws of 24 and 10 bytes span a dozen 4 KB blocks, some not fitting at a block's end.
    const values = Array.from({ length: 3000 }, (_, i) => (i % 2 === 0 ? randomBase64url(24) : randomCharacters(10, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')));
    expect(new Set(values).size).toBe(values.length);
    expect(values.filter((_, i) => i % 2 === 0).every((v) => /^[A-Za-z0-9_-]{32}$/.test(v))).toBe(true);
    expect(values.filter((_, i) => i % 2 === 1).every((v) => /^[A-HJ-NP-Z2-9]{10}$/.test(v))).toBe(true);
  });

  it('use every character of the alphabet', () => {
    expect(new Set(randomCharacters(4000, 'ab')).size).toBe(2);
    expect(new Set(randomCharacters(4000, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')).size).toBe(32);
  });

  it('refuse an alphabet that would favour some characters, and more bytes than a block', () => {
    expect(() => randomCharacters(10, 'abc')).toThrow(RangeError);
    expect(() => randomBase64url(5000)).toThrow(RangeError);
  });
});

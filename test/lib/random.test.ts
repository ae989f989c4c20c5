import { describe, expect, it } from 'vitest';
import { randomBase64url, randomCharacters, readableCode } from '../../src/lib/random.js';

describe('random values', () => {
  it('are never handed out twice', () => {
    const values = Array.from({ length: 3000 }, (_, i) => (i % 2 === 0 ? randomBase64url(24) : randomCharacters(10, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')));
    expect(new Set(values).size).toBe(values.length);
    expect(values.filter((_, i) => i % 2 === 0).every((v) => /^[A-Za-z0-9_-]{32}$/.test(v))).toBe(true);
    expect(values.filter((_, i) => i % 2 === 1).every((v) => /^[A-HJ-NP-Z2-9]{10}$/.test(v))).toBe(true);
  });

  it('use every character of the alphabet', () => {
    expect(new Set(randomCharacters(4000, 'ab')).size).toBe(2);
    expect(new Set(randomCharacters(4000, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')).size).toBe(32);
  });

  it('refuse an alphabet that would favour some characters', () => {
    expect(() => randomCharacters(10, 'abc')).toThrow(RangeError);
  });

  describe('readable codes', () => {
    const MINUTE = 60_000;
    const PERIOD = 32 ** 3 * MINUTE;
    const at = Date.UTC(2026, 10, 22, 10, 30, 15);

    it('are twelve characters people can read out, random after the minute they were made', () => {
      const codes = Array.from({ length: 2000 }, () => readableCode(at));
      expect(codes.every((code) => /^[A-HJ-NP-Z2-9]{12}$/.test(code))).toBe(true);
      expect(new Set(codes.map((code) => code.slice(0, 3))).size).toBe(1);
      expect(new Set(codes).size).toBe(codes.length);
      expect(new Set(codes.map((code) => code.slice(3))).size).toBe(codes.length);
    });

    it('made in one minute share a prefix of their own, which comes back every 32,768 minutes', () => {
      expect(readableCode(at).slice(0, 3)).toBe(readableCode(at - 15_000 + 59_999).slice(0, 3));
      expect(readableCode(at + MINUTE).slice(0, 3)).not.toBe(readableCode(at).slice(0, 3));
      expect(readableCode(at + PERIOD).slice(0, 3)).toBe(readableCode(at).slice(0, 3));
      expect(readableCode(0).slice(0, 3)).toBe('AAA');
      expect(readableCode(PERIOD - MINUTE).slice(0, 3)).toBe('999');
      expect(readableCode(33 * MINUTE).slice(0, 3)).toBe('ABB');
    });
  });
});

import { describe, expect, it } from 'vitest';
import { centsToNumber, formatCents, mulDivCents, toCents } from '../../src/lib/money.js';

describe('toCents', () => {
  it('reads decimal text digit by digit, half-up to the cent', () => {
    expect(toCents('45')).toBe(4500);
    expect(toCents('45.5')).toBe(4550);
    expect(toCents('45.50')).toBe(4550);
    expect(toCents('45.505')).toBe(4551);
    expect(toCents('45.504')).toBe(4550);
    expect(toCents('45.999')).toBe(4600);
    expect(toCents('0.005')).toBe(1);
    expect(toCents('-3')).toBe(-300);
    expect(toCents('-0.005')).toBe(-1);
    expect(toCents('007.10')).toBe(710);
  });

  it('refuses text that is not plain decimal digits', () => {
    for (const text of ['', ' ', ' 45', '45 ', '+45', '1e2', '0x10', '4,50', '.5', '5.', 'NaN', 'Infinity', '45.5.5', '--1']) {
      expect(toCents(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('reads a JSON number by its shortest form, exponents included, never by its binary error', () => {
    expect(toCents(45.505)).toBe(4551);
    expect(toCents(1.005)).toBe(101);
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(1e2)).toBe(10000);
    expect(toCents(1e-7)).toBe(0);
    expect(toCents(-2.5)).toBe(-250);
    expect(toCents(Infinity)).toBeUndefined();
    expect(toCents(NaN)).toBeUndefined();
    expect(toCents(1e300)).toBeUndefined();
  });
});

describe('formatCents and centsToNumber', () => {
  it('write cents as the API shows money', () => {
    expect(formatCents(4500)).toBe('45.00');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(-5)).toBe('-0.05');
    expect(formatCents(-12345)).toBe('-123.45');
    expect(formatCents(0)).toBe('0.00');
    expect(centsToNumber(4550)).toBe(45.5);
  });
});

describe('mulDivCents', () => {
  it('scales cents exactly, half-up away from zero', () => {
    expect(mulDivCents(4500, 1250, 10000)).toBe(563); // 12.5 % of 45.00 = 5.625
    expect(mulDivCents(4500, 1, 3)).toBe(1500);
    expect(mulDivCents(100, 1, 3)).toBe(33);
    expect(mulDivCents(200, 1, 3)).toBe(67);
    expect(mulDivCents(-4500, 1250, 10000)).toBe(-563);
    expect(mulDivCents(4500, 1250, -10000)).toBe(-563);
    expect(mulDivCents(0, 5, 7)).toBe(0);
  });
});

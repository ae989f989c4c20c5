/**
 * Money is integer cents end to end; these are the only conversions to and from the API's
 * decimal forms. Rounding is half-up (away from zero) to the cent.
 */

/** 4500 → "45.00"; -5 → "-0.05". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** 4500 → 45 (the JSON-number form used by discount fields). */
export function centsToNumber(cents: number): number {
  return cents / 100;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * "45", "45.5", 45.505 or 1e2 → cents, half-up. Text must be written in decimal digits ("45.50",
 * "-3"; not " 45", "+45" or "1e2") and is parsed digit by digit, never through binary floating
 * point; a JS number is first written in its shortest exact-looking form. Returns undefined for
 * anything that is not a finite decimal.
 */
export function toCents(value: number | string): number | undefined {
  let text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof value === 'number' && /e/i.test(text)) text = value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '0', fraction = ''] = match;
  const digits = fraction.padEnd(3, '0');
  let cents = Number(whole) * 100 + Number(digits.slice(0, 2));
  if (Number(digits[2]) >= 5) cents += 1;
  if (!Number.isSafeInteger(cents)) return undefined;
  return sign === '-' ? -cents : cents;
}

/**
 * cents × numerator / denominator, rounded half-up (away from zero) to the cent, in exact integer
 * arithmetic: all three must be integers (a 12.5 % discount is 1250 / 10000).
 */
export function mulDivCents(cents: number, numerator: number, denominator: number): number {
  const product = cents * numerator;
  const sign = Math.sign(product) * Math.sign(denominator);
  const n = Math.abs(product);
  const d = Math.abs(denominator);
  const quotient = Math.floor(n / d);
  const remainder = n - quotient * d;
  return sign * (2 * remainder >= d ? quotient + 1 : quotient);
}

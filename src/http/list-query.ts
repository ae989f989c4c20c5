import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { Type } from 'typebox';
import { AppError } from '../core/errors.js';
import { isCalendarDate, storedInstant } from '../lib/time.js';
import { textPattern } from './text-patterns.js';

/** `order`: asc or desc, in either case (agents document lower case, services upper case). */
export const SortOrderParam = Type.Enum(['asc', 'desc', 'ASC', 'DESC']);

export function sortDirection(order: string | undefined, fallback: 'asc' | 'desc' = 'asc'): 'asc' | 'desc' {
  return order === undefined ? fallback : order.toLowerCase() === 'desc' ? 'desc' : 'asc';
}

/** A YYYY-MM-DD query parameter (a real calendar date). */
export function DateParam(description: string) {
  return Type.String({ format: 'date', description });
}

/** An instant as ISO 8601 with seconds and an offset or Z: text without one names no single instant. */
const INSTANT_PATTERN = textPattern(
  '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,3})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$',
  'must be an ISO 8601 date and time with an offset or Z, e.g. 2030-01-07T10:00:00Z or 2030-01-07T10:00:00.000+01:00',
);

/** The longest instant the pattern takes: milliseconds and an offset (`2026-12-01T09:30:00.123+01:00`). */
const INSTANT_LENGTH = 29;

/** `updated_after` and `updated_before`, as the lists that filter on updated_at declare them. */
export const updatedParams = {
  updated_after: Type.Optional(
    Type.String({ maxLength: INSTANT_LENGTH, pattern: INSTANT_PATTERN, description: 'ISO 8601 with an offset or Z: only records updated after this instant (exclusive)' }),
  ),
  updated_before: Type.Optional(
    Type.String({ maxLength: INSTANT_LENGTH, pattern: INSTANT_PATTERN, description: 'ISO 8601 with an offset or Z: only records updated before this instant (exclusive)' }),
  ),
};

/** Exclusive bounds on updated_at, in the stored form (ISO 8601 UTC text), which compares as text on both engines. */
export interface UpdatedBounds {
  after?: string;
  before?: string;
}

/**
 * `updated_after` and `updated_before` (already matched against their pattern) → stored-form
 * bounds. A day the calendar lacks (2030-02-30, which Date rolls into March) is refused, as is
 * an empty range; the refusal carries the list's own validation code.
 */
export function updatedBounds(
  query: { updated_after?: string; updated_before?: string },
  code: 'invalid_request' | 'invalid_parameters' = 'invalid_request',
): UpdatedBounds {
  const bound = (field: 'updated_after' | 'updated_before'): string | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    if (!isCalendarDate(value.slice(0, 10))) throw new AppError(code, `${field} is not a calendar date`, { [field]: 'is not a calendar date' });
    return storedInstant(Date.parse(value));
  };
  const after = bound('updated_after');
  const before = bound('updated_before');
  if (after !== undefined && before !== undefined && after >= before) {
    throw new AppError(code, 'updated_before must be after updated_after', { updated_before: 'must be after updated_after' });
  }
  return { after, before };
}

/**
 * A comma-separated `include` list checked against the names a list offers: an unknown name is
 * 400 `invalid_request` naming `include`.
 */
export function parseInclude<T extends string>(raw: string | undefined, allowed: readonly T[]): Set<T> {
  const names = (raw ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !(allowed as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new AppError('invalid_request', 'Invalid query parameters', {
      include: `unknown value ${unknown.join(', ')}; allowed: ${allowed.join(', ')}`,
    });
  }
  return new Set(names as T[]);
}

/** Text lowered by the database, with the Greek final ς as σ: lower() makes σ of Σ wherever it stands. */
function folded(text: Expression<unknown> | RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`replace(lower(${text}), 'ς', 'σ')`;
}

/**
 * Case-insensitive "contains" on both dialects, of a column or text made of columns; the text's
 * own % and _ match literally. The database folds both sides alike, so text finds itself whatever
 * its letters (PostgreSQL's and JavaScript's lower case differ for some).
 */
export function containsText(column: string | Expression<unknown>, text: string): Expression<SqlBool> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`${folded(typeof column === 'string' ? sql.ref(column) : column)} like ${folded(sql`${pattern}`)} escape '\\'`;
}

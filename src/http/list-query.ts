import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { Type } from 'typebox';
import { AppError } from '../core/errors.js';

/** `order`: asc or desc, in either case (agents document lower case, services upper case). */
export const SortOrderParam = Type.Enum(['asc', 'desc', 'ASC', 'DESC']);

export function sortDirection(order: string | undefined, fallback: 'asc' | 'desc' = 'asc'): 'asc' | 'desc' {
  return order === undefined ? fallback : order.toLowerCase() === 'desc' ? 'desc' : 'asc';
}

/** A YYYY-MM-DD query parameter (a real calendar date). */
export function DateParam(description: string) {
  return Type.String({ format: 'date', description });
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

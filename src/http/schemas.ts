import { Type, type TSchema, type TSchemaOptions } from 'typebox';
import { textPattern } from './text-patterns.js';
import type { ErrorStyle } from '../core/errors.js';
import { TEXT_LIMITS } from '../core/limits.js';

const RetryAfter = Type.Optional(Type.Integer({ description: 'Seconds until the rate limit lets the key in again (429 only)' }));
const ErrorStyle1 = Type.Object(
  {
    status: Type.Literal('error'),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      retry_after: RetryAfter,
    }),
  },
  { $id: 'ErrorStyle1', description: 'Error, style 1' },
);
const ErrorStyle2 = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String(),
    code: Type.Optional(Type.String({ description: 'Present when the error carries more than its text (retry_after, details)' })),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    retry_after: RetryAfter,
  },
  { $id: 'ErrorStyle2', description: 'Error, style 2 (payments)' },
);
const ErrorStyle3 = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    retry_after: RetryAfter,
    data: Type.Object({ status: Type.Integer(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
  },
  { $id: 'ErrorStyle3', description: 'Error, style 3 (customer update)' },
);

/** Shared schemas, registered once with app.addSchema and referenced by $id. */
export const SHARED_SCHEMAS = [ErrorStyle1, ErrorStyle2, ErrorStyle3];

const ERROR_REF: Record<ErrorStyle, TSchema> = {
  1: Type.Ref('ErrorStyle1'),
  2: Type.Ref('ErrorStyle2'),
  3: Type.Ref('ErrorStyle3'),
};

/** Response entries for the error statuses a route can answer (documentation; the error handler renders them). */
export function errorResponses(statuses: readonly number[], style: ErrorStyle = 1): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ERROR_REF[style]]));
}

/** Statuses every authenticated route can answer besides its own. */
export const AUTH_ERRORS = [401, 403, 429, 500, 503] as const;

/**
 * The largest value of the 32-bit integer columns. Every integer a request gives has a schema
 * bound within it, so none reaches PostgreSQL as an out-of-range value.
 */
export const MAX_INT32 = 2_147_483_647;

/** A row id in a path, query or body: integers or digit strings (contract §3), within the column range. */
export const Id = (options: TSchemaOptions = {}) => Type.Integer({ minimum: 1, maximum: MAX_INT32, ...options });

/** Any other integer a 32-bit column stores (display order, image ids and the like). */
export const Int32 = (options: TSchemaOptions = {}) => Type.Integer({ minimum: -MAX_INT32 - 1, maximum: MAX_INT32, ...options });

/**
 * Query text matched as a part of stored text. Bounded: SQLite refuses a LIKE pattern over
 * 50,000 bytes, and no stored field the lists search is anywhere near this long.
 */
export const PartialText = (description: string, maxLength = 200) => Type.String({ maxLength, description });

/** Integer id in a path. */
export const IdParams = Type.Object({ id: Id() });

/**
 * The largest amount any money field accepts: its cents, and the sum of two of them (subtotal
 * plus tax), fit the 32-bit integer columns.
 */
export const MAX_AMOUNT = 10_000_000;

/** Money as the API shows it in orders, invoices and payments (contract §3). */
export const Currency = Type.String({ description: 'ISO 4217 code of the amounts (the site setting currency)', examples: ['EUR'] });
export const Money = Type.String({ pattern: textPattern('^-?\\d+\\.\\d{2}$', 'must be an amount with two decimals, e.g. 45.00'), description: 'Decimal with two places', examples: ['45.00'] });
/** `YYYY-MM-DD HH:MM:SS` in the site timezone. */
export const SiteDateTime = Type.String({ description: 'YYYY-MM-DD HH:MM:SS in the site timezone', examples: ['2026-12-01 09:30:00'] });
export const NullableString = Type.Union([Type.Null(), Type.String()]);
/** A money amount in a request: a number (or numeric string), rounded half-up to the cent. */
export const AmountInput = (description: string) => Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description });

/** Where a field's code-checked rules ride on its schema: the validator and the serializer never see a symbol. */
export const RULES_CHECKED_IN_CODE = Symbol('rulesCheckedInCode');

export interface FieldRules {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'date' | 'email';
  minimum?: number;
  maximum?: number;
  maxProperties?: number;
  propertyNames?: { minLength?: number; maxLength?: number };
}

/**
 * Schema options that show in the OpenAPI document rules the route's code checks itself (on the
 * trimmed value, answering 422 with its own words for the field). Declared in the schema they
 * would be checked first, with another status and message; here they only document.
 */
export function checkedInCode(rules: FieldRules): TSchemaOptions {
  return { [RULES_CHECKED_IN_CODE]: rules };
}

/** The rules of an amount a route reads itself: a number or decimal text, 0 to MAX_AMOUNT, rounded half-up to the cent. */
export const AMOUNT_NUMBER_RULES = checkedInCode({ minimum: 0, maximum: MAX_AMOUNT });
const AMOUNT_TEXT_RULES = checkedInCode({ pattern: '^\\d+(\\.\\d+)?$' });
/** An amount a route reads itself, sent as decimal text; its length is bounded by the schema. */
export const AmountText = () => Type.String({ maxLength: TEXT_LIMITS.amountText, ...AMOUNT_TEXT_RULES });

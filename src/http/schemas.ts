import { Type, type TSchema } from 'typebox';
import type { ErrorStyle } from './errors.js';

const ErrorStyle1 = Type.Object(
  {
    status: Type.Literal('error'),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      retry_after: Type.Optional(Type.Integer()),
    }),
  },
  { $id: 'ErrorStyle1', description: 'Error, style 1' },
);
const ErrorStyle2 = Type.Object(
  { success: Type.Literal(false), error: Type.String() },
  { $id: 'ErrorStyle2', description: 'Error, style 2 (payments)' },
);
const ErrorStyle3 = Type.Object(
  { code: Type.String(), message: Type.String(), data: Type.Object({ status: Type.Integer() }) },
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

/** The largest id the 32-bit integer columns hold. */
export const MAX_ID = 2147483647;

/** An integer id: integers or digit strings (contract §3), within the column range. */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });

/** Integer id in a path. */
export const IdParams = Type.Object({ id: Id });

/**
 * The one error type of the service. Domain code throws AppError with a code from this closed
 * set; the error handler maps the code to its HTTP status and renders the route's error style.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_parameters: 400,
  customer_update_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  insufficient_permissions: 403,
  not_found: 404,
  method_not_allowed: 405,
  booking_not_found: 404,
  category_not_found: 404,
  customer_not_found: 404,
  agent_not_found: 404,
  service_not_found: 404,
  location_not_found: 404,
  order_not_found: 404,
  invoice_not_found: 404,
  transaction_not_found: 404,
  coupon_not_found: 404,
  payment_not_found: 404,
  webhook_not_found: 404,
  webhook_delivery_not_found: 404,
  calendar_feed_not_found: 404,
  time_slot_unavailable: 409,
  email_already_exists: 409,
  coupon_already_exists: 409,
  customer_has_bookings: 409,
  agent_has_bookings: 409,
  service_has_bookings: 409,
  location_has_bookings: 409,
  booking_has_payments: 409,
  idempotency_key_in_progress: 409,
  idempotency_response_lost: 409,
  validation_failed: 422,
  data_inconsistency: 422,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  server_error: 500,
  service_not_available: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Field (or parameter) name → what is wrong with it; some codes carry structured values instead. */
export type ErrorDetails = Record<string, unknown>;

export interface AppErrorOptions {
  /** Extra members of the error object beside code, message and details (e.g. retry_after). */
  extra?: Record<string, unknown>;
  /** Only where one code serves several statuses (413 invalid_request for an oversize body). */
  status?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options: AppErrorOptions = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.extra = options.extra;
    this.statusCode = options.status ?? ERROR_STATUS[code];
  }
}

/**
 * Style 1: `{status: "error", error: {code, message, details?}}` (the default);
 * style 2 (payments): `{success: false, error: "text"}`;
 * style 3 (customer update): `{code, message, data: {status}}`.
 */
export type ErrorStyle = 1 | 2 | 3;

export function renderError(error: AppError, style: ErrorStyle): Record<string, unknown> {
  const { code } = error;
  // Extras (retry_after) stand beside the code and the message in every style; style 2, which
  // has no code otherwise, names it beside them.
  switch (style) {
    case 2:
      return { success: false, error: error.message, ...(error.extra ? { code, ...error.extra } : {}) };
    case 3:
      return {
        code,
        message: error.message,
        ...error.extra,
        data: { status: error.statusCode, ...(error.details ? { details: error.details } : {}) },
      };
    default:
      return {
        status: 'error',
        error: { code, message: error.message, ...(error.details ? { details: error.details } : {}), ...error.extra },
      };
  }
}

export function notFound(code: Extract<ErrorCode, `${string}_not_found`>, what: string, id: number | string): AppError {
  return new AppError(code, `${what} ${id} was not found`);
}

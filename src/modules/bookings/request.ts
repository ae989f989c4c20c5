import { AppError, type ErrorDetails } from '../../core/errors.js';
import { toCents } from '../../lib/money.js';
import { parseAgentChoice } from '../availability/index.js';
import { emailProblem, nameProblem, phoneProblem } from '../customers/index.js';
import type { NewCustomer } from './customers.js';
import { META_LIMITS, type BulkElementInput, type CustomerFieldsInput } from './schemas.js';
import { isCalendarDate } from '../../lib/time.js';
import { MAX_AMOUNT } from '../../http/schemas.js';

/** A booking to create, checked for form; the database checks come later (service.prepareBooking). */
export interface BookingRequest {
  serviceId: number;
  agent: number | 'any';
  startDate: string;
  startTime: string;
  customer: { id: number } | { new: NewCustomer };
  locationId?: number;
  duration?: number;
  /** Seats taken of the service's capacity_max. */
  attendees: number;
  priceCents?: number;
  /** A coupon for the booking's new order (docs/money.md). */
  couponCode?: string;
  status: 'pending' | 'approved' | 'cancelled';
  notes: string | null;
  meta: Record<string, string>;
}

type DottedCustomer = Partial<Record<'customer.first_name' | 'customer.last_name' | 'customer.email' | 'customer.phone', string>>;

function dottedFieldsOf(body: DottedCustomer): CustomerFieldsInput {
  return { first_name: body['customer.first_name'], last_name: body['customer.last_name'], email: body['customer.email'], phone: body['customer.phone'] };
}

/** Whether the body names any customer field, dotted or nested. */
export function sendsCustomerFields(body: DottedCustomer & { customer?: CustomerFieldsInput }): boolean {
  return [dottedFieldsOf(body), body.customer ?? {}].some((source) => Object.values(source).some((value) => value !== undefined));
}

/** Text that says the same thing: equal but for surrounding spaces, and an email in any case. */
function sameValue(key: keyof CustomerFieldsInput, a: string, b: string): boolean {
  return key === 'email' ? a.trim().toLowerCase() === b.trim().toLowerCase() : a.trim() === b.trim();
}

/** Customer fields sent as dotted keys or as a nested `customer` object; both ways, they must agree. */
export function customerFieldsOf(body: DottedCustomer & { customer?: CustomerFieldsInput }): CustomerFieldsInput {
  const fields: CustomerFieldsInput = {};
  const dotted = dottedFieldsOf(body);
  for (const source of [dotted, body.customer ?? {}]) {
    for (const [key, value] of Object.entries(source) as [keyof CustomerFieldsInput, string | undefined][]) {
      if (value === undefined) continue;
      // Sent both ways, a field must say one thing: neither may silently win.
      const earlier = fields[key];
      if (earlier !== undefined && !sameValue(key, earlier, value)) {
        throw new AppError('invalid_request', `customer.${key} was sent twice, as a dotted key and in customer, with different values`, {
          [`customer.${key}`]: 'sent as a dotted key and in customer with different values',
        });
      }
      fields[key] = value;
    }
  }
  return fields;
}

export interface CheckedCustomerFields {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string | null;
}

/**
 * The customer fields present, under the rules of POST /customers (a booking may create or
 * change the customer): names and email trimmed, an empty phone is none.
 */
export function checkCustomerFields(fields: CustomerFieldsInput): CheckedCustomerFields {
  const details: ErrorDetails = {};
  const checked: CheckedCustomerFields = {};
  const check = (key: keyof CustomerFieldsInput, value: string, problem: string | undefined) => {
    if (problem !== undefined) details[`customer.${key}`] = problem;
    return value;
  };
  for (const key of ['first_name', 'last_name'] as const) {
    const value = fields[key]?.trim();
    if (value !== undefined) checked[key] = check(key, value, nameProblem(value));
  }
  const email = fields.email?.trim();
  if (email !== undefined) checked.email = check('email', email, emailProblem(email));
  const phone = fields.phone?.trim();
  if (phone !== undefined) checked.phone = phone === '' ? null : check('phone', phone, phoneProblem(phone));
  if (Object.keys(details).length > 0) throw new AppError('validation_failed', 'Invalid customer fields', details);
  return checked;
}

function metaRefusal(problem: string): AppError {
  return new AppError('validation_failed', `Invalid meta: ${problem}`, { meta: problem });
}

/** The metadata of one request, checked to be within META_LIMITS (a null value removes its key). */
export function checkMeta<M extends Record<string, string | null>>(meta: M): M {
  const entries = Object.entries(meta);
  if (entries.length > META_LIMITS.keys) throw metaRefusal(`must have at most ${META_LIMITS.keys} keys`);
  if (entries.some(([key]) => key === '' || [...key].length > META_LIMITS.keyLength)) throw metaRefusal(`keys must be 1 to ${META_LIMITS.keyLength} characters`);
  if (entries.some(([, value]) => value !== null && [...value].length > META_LIMITS.valueLength)) {
    throw metaRefusal(`values must be at most ${META_LIMITS.valueLength} characters`);
  }
  return meta;
}

/** A booking holds at most META_LIMITS.keys keys once a request's metadata is merged in. */
export function checkMergedMeta(keyCount: number): void {
  if (keyCount > META_LIMITS.keys) throw metaRefusal(`a booking holds at most ${META_LIMITS.keys} keys; this change would leave ${keyCount}`);
}

export function parsePrice(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const cents = toCents(value);
  if (cents === undefined) throw new AppError('invalid_request', 'price must be a decimal amount', { price: 'must be a decimal amount such as "45.00"' });
  if (cents < 0) throw new AppError('validation_failed', 'price must not be negative', { price: 'must not be negative' });
  if (cents > MAX_AMOUNT * 100) throw new AppError('validation_failed', `price must be at most ${MAX_AMOUNT}`, { price: `must be at most ${MAX_AMOUNT}` });
  return cents;
}

export function requireCalendarDate(field: string, value: string): string {
  if (!isCalendarDate(value)) throw new AppError('invalid_request', `${field} is not a calendar date`, { [field]: 'is not a calendar date' });
  return value;
}

/** Checks the form of one booking to create (POST /bookings or one bulk element). */
export function parseBookingRequest(
  body: BulkElementInput & DottedCustomer,
  defaultStatus: BookingRequest['status'],
): BookingRequest {
  let customer: BookingRequest['customer'];
  if (body.customer_id !== undefined) {
    customer = { id: body.customer_id };
  } else {
    const fields = customerFieldsOf(body);
    const missing: ErrorDetails = {};
    for (const key of ['first_name', 'last_name', 'email'] as const) {
      if (fields[key] === undefined) missing[`customer.${key}`] = 'is required when customer_id is absent';
    }
    if (Object.keys(missing).length > 0) {
      throw new AppError('invalid_request', 'Give customer_id, or customer first_name, last_name and email', missing);
    }
    const checked = checkCustomerFields(fields);
    customer = {
      new: { first_name: checked.first_name ?? '', last_name: checked.last_name ?? '', email: checked.email ?? '', phone: checked.phone ?? null },
    };
  }
  return {
    serviceId: body.service_id,
    agent: parseAgentChoice(body.agent_id),
    startDate: requireCalendarDate('start_date', body.start_date),
    startTime: body.start_time,
    customer,
    locationId: body.location_id,
    duration: body.duration,
    attendees: body.attendees ?? 1,
    priceCents: parsePrice(body.price),
    couponCode: body.coupon_code?.trim() || undefined,
    status: body.status ?? defaultStatus,
    notes: body.notes ?? null,
    meta: checkMeta(body.meta ?? {}),
  };
}

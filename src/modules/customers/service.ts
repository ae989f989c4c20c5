import { createHash } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { CustomersTable } from './table.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/constraints.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import type { Actor } from '../../core/actor.js';
import { changedAttributes, recordEvent, recordEvents } from '../events/index.js';
import { AppError, notFound, type ErrorDetails } from '../../core/errors.js';
import { offsetOf, pageOf, type Page } from '../../core/pagination.js';
import type { Site } from '../../core/site.js';
import { updatedBounds } from '../../http/list-query.js';
import { formatCents } from '../../lib/money.js';
import { isCalendarDate, localDateTime, nowIso, storedInstant, todayIn } from '../../lib/time.js';
import { localInstant, storedDayBounds, wallClockBoundary } from '../availability/index.js';
import { enqueueMail } from '../mail/index.js';
import * as repository from './repository.js';
import type { CustomerBookingRow, CustomerFilters, CustomerRow } from './repository.js';
import { cleanCustomerInput, emailTaken, mergeCustomFields, type CleanedInput } from './rules.js';
import {
  BOOKINGS_PER_CUSTOMER,
  INCLUDES,
  type CreateCustomerBody,
  type CustomerListQuery,
  type Include,
  type UpdateCustomerBody,
} from './schemas.js';
import { CATALOG_LOCK, customerLock, emailLock, type LockKey } from '../../core/locks.js';
import { MAX_CUSTOM_FIELDS } from '../../core/limits.js';
import { renewManageLinks } from '../manage-links/index.js';

export interface CustomerStats {
  total_bookings: number;
  completed_bookings: number;
  cancelled_bookings: number;
  no_show_bookings: number;
  total_spent: string;
  last_booking_date: string | null;
  next_booking_date: string | null;
}

export type CustomerBooking = Omit<CustomerBookingRow, 'customer_id'>;

export interface CustomerView {
  id: number;
  customer_code: string;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  status: string;
  date_of_birth: string | null;
  gender: string | null;
  address: string | null;
  city: string | null;
  state: string | null;
  zipcode: string | null;
  country: string | null;
  is_guest: boolean;
  host_user_id: number | null;
  avatar_image_id: number | null;
  preferred_agent_id: number | null;
  preferred_location_id: number | null;
  created_at: string;
  updated_at: string;
  custom_fields?: Record<string, unknown>;
  notes?: string | null;
  avatar_url?: string;
  stats?: CustomerStats;
  bookings?: CustomerBooking[];
}

export type CustomerDetailView = CustomerView & Required<Pick<CustomerView, 'custom_fields' | 'notes' | 'avatar_url'>>;

// --- Presentation -------------------------------------------------------------------------------

/** Gravatar of the email (SHA-256 of the trimmed, lower-cased address); the "mystery person" without one. */
function avatarUrl(email: string | null): string {
  const hash = email ? createHash('sha256').update(email.trim().toLowerCase()).digest('hex') : '';
  return `https://www.gravatar.com/avatar/${hash}?d=mp&s=96`;
}

function parseCustomFields(json: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(json);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

function baseView(row: CustomerRow, timezone: string): CustomerView {
  return {
    id: row.id,
    customer_code: row.customer_code,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    phone: row.phone,
    status: row.status,
    date_of_birth: row.date_of_birth,
    gender: row.gender,
    address: row.address,
    city: row.city,
    state: row.state,
    zipcode: row.zipcode,
    country: row.country,
    is_guest: row.is_guest === 1,
    host_user_id: row.host_user_id,
    avatar_image_id: row.avatar_image_id,
    preferred_agent_id: row.preferred_agent_id,
    preferred_location_id: row.preferred_location_id,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

function detailView(row: CustomerRow, timezone: string): CustomerDetailView {
  return {
    ...baseView(row, timezone),
    custom_fields: parseCustomFields(row.custom_fields),
    notes: row.notes,
    avatar_url: avatarUrl(row.email),
  };
}

/**
 * Changes a customer's columns for another module (a booking update that edits its customer),
 * with the customer.updated event when anything the customer's GET shows changed.
 */
export async function changeCustomerColumns(db: Db, actor: Actor, timezone: string, id: number, changes: Updateable<CustomersTable>): Promise<{ before: CustomerRow; after: CustomerRow }> {
  const before = await repository.findCustomer(db, id);
  if (!before) throw notFound('customer_not_found', 'Customer', id);
  const after = await repository.updateCustomer(db, id, changes);
  if (!after) throw notFound('customer_not_found', 'Customer', id);
  const data = detailView(after, timezone);
  const previousAttributes = changedAttributes(detailView(before, timezone), data);
  if (previousAttributes !== undefined) await recordEvent(db, actor, { type: 'customer.updated', resourceId: id, data, previousAttributes });
  return { before, after };
}

/** Records that customers were made, each as GET /customers/{id} shows it; with the transaction that made them. */
export async function recordCustomersCreated(db: Db, actor: Actor, rows: readonly CustomerRow[], timezone: string): Promise<void> {
  await recordEvents(db, actor, rows.map((row) => ({ type: 'customer.created', resourceId: row.id, data: detailView(row, timezone) })));
}

const NO_STATS: Omit<CustomerStats, 'total_spent'> = {
  total_bookings: 0,
  completed_bookings: 0,
  cancelled_bookings: 0,
  no_show_bookings: 0,
  last_booking_date: null,
  next_booking_date: null,
};

/** Stats and bookings for a whole page of customers: a fixed number of grouped queries, never one per customer. */
async function attachRelated(db: Db, views: CustomerView[], include: ReadonlySet<Include>, timezone: string): Promise<void> {
  const ids = views.map((v) => v.id);
  if (include.has('stats')) {
    const [counts, spent] = await Promise.all([repository.bookingStats(db, ids, todayIn(timezone)), repository.totalSpent(db, ids)]);
    for (const view of views) {
      view.stats = { ...(counts.get(view.id) ?? NO_STATS), total_spent: formatCents(spent.get(view.id) ?? 0) };
    }
  }
  if (include.has('bookings')) {
    const rows = await repository.recentBookings(db, ids, BOOKINGS_PER_CUSTOMER);
    const byCustomer = new Map<number, CustomerBooking[]>(ids.map((id) => [id, []]));
    for (const { customer_id, ...booking } of rows) byCustomer.get(customer_id)?.push(booking);
    for (const view of views) view.bookings = byCustomer.get(view.id) ?? [];
  }
}

/** `include` text (already matched against the schema's pattern) → the set of names. */
export function parseInclude(text: string | undefined): Set<Include> {
  const names = (text ?? '').split(',').map((part) => part.trim());
  return new Set(INCLUDES.filter((name) => names.includes(name)));
}

// --- List ---------------------------------------------------------------------------------------

interface InstantRange {
  from: string;
  until: string;
}

/**
 * A prefix of the displayed date-time (`2026`, `2026-03`, `2026-03-14 09`, …) in the site timezone
 * → the UTC range of instants whose display starts with it, so the filter runs on the index: from
 * the first instant the clocks reach the prefix to the first they reach what follows it. So an
 * hour the clocks skip matches nothing, and an hour they repeat matches both times. A minute or
 * second the clocks skip matches nothing; one they repeat, its first occurrence (contract §6).
 */
function prefixRange(parameter: string, text: string, timezone: string, bad: ErrorDetails): InstantRange | undefined {
  const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[ T](\d{2})(?::(\d{2})(?::(\d{2}))?)?)?)?)?$/.exec(text);
  const [year = '', month, day, hour, minute, second] = match?.slice(1) ?? [];
  const first = `${year}-${month ?? '01'}-${day ?? '01'}`;
  const clock = [Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0)] as const;
  if (!match || !isCalendarDate(first) || clock[0] > 23 || clock[1] > 59 || clock[2] > 59) {
    bad[parameter] = 'must be a real date-time prefix: YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DD HH[:MM[:SS]]';
    return undefined;
  }
  if (hour === undefined) {
    return { from: storedDayBounds(first, timezone).from, until: storedDayBounds(lastDateOf(year, month, day), timezone).until };
  }
  if (minute === undefined) {
    const minutes = clock[0] * 60;
    return { from: storedInstant(wallClockBoundary(first, minutes, timezone)), until: storedInstant(wallClockBoundary(first, minutes + 60, timezone)) };
  }
  const start = localInstant(first, `${hour}:${minute}`, timezone);
  if (start === undefined) return { from: NO_INSTANT, until: NO_INSTANT };
  const from = start + clock[2] * 1000;
  return { from: storedInstant(from), until: storedInstant(from + (second === undefined ? 60_000 : 1000)) };
}

/** A bound no stored instant reaches: a range from it to it matches nothing. */
const NO_INSTANT = '9999-99';

/** The last date a YYYY, YYYY-MM or YYYY-MM-DD prefix covers. */
function lastDateOf(year: string, month: string | undefined, day: string | undefined): string {
  if (month === undefined) return `${year}-12-31`;
  if (day !== undefined) return `${year}-${month}-${day}`;
  // Day 0 of the next month is the last of this one; setUTCFullYear takes years below 100 as they are.
  const last = new Date(0);
  last.setUTCFullYear(Number(year), Number(month), 0);
  return `${year}-${month}-${String(last.getUTCDate()).padStart(2, '0')}`;
}

function listFilters(query: CustomerListQuery, timezone: string): CustomerFilters {
  const bad: ErrorDetails = {};
  const filters: CustomerFilters = {
    status: query.status,
    hasBookings: query.has_bookings,
    isGuest: query.is_guest,
    hostUserId: query.host_user_id,
    firstName: query.first_name?.trim(),
    lastName: query.last_name?.trim(),
    email: query.email?.trim(),
    phone: query.phone?.trim(),
    search: query.search?.trim(),
  };
  if (query.created_after !== undefined) filters.createdFrom = storedDayBounds(query.created_after, timezone).from;
  if (query.created_before !== undefined) filters.createdUntil = storedDayBounds(query.created_before, timezone).until;
  const created = query.created_at === undefined ? undefined : prefixRange('created_at', query.created_at, timezone, bad);
  const updated = query.updated_at === undefined ? undefined : prefixRange('updated_at', query.updated_at, timezone, bad);
  if (Object.keys(bad).length > 0) throw new AppError('invalid_parameters', 'Invalid query parameters', bad);
  const { after, before } = updatedBounds(query, 'invalid_parameters');
  filters.updatedAfter = after;
  filters.updatedBefore = before;
  // created_at and created_after/before both bound the same column: keep the tighter bound of each side.
  if (created) {
    filters.createdFrom = filters.createdFrom === undefined || created.from > filters.createdFrom ? created.from : filters.createdFrom;
    filters.createdUntil = filters.createdUntil === undefined || created.until < filters.createdUntil ? created.until : filters.createdUntil;
  }
  if (updated) {
    filters.updatedFrom = updated.from;
    filters.updatedUntil = updated.until;
  }
  return filters;
}

export interface CustomerList {
  data: CustomerView[];
  page: Page;
}

export async function listCustomers(db: Db, site: Site, query: CustomerListQuery): Promise<CustomerList> {
  const { timezone } = await site();
  const filters = listFilters(query, timezone);
  const request = { page: query.page ?? 1, perPage: query.per_page ?? 20 };
  const order = { column: query.order_by ?? 'created_at', direction: query.order_direction ?? 'desc' } as const;
  const [total, ids] = await Promise.all([
    repository.countCustomers(db, filters),
    repository.pageQuery(db, filters, order, request.perPage, offsetOf(request)).execute(),
  ]);
  const rows = await repository.customersByIds(db, ids.map((row) => row.id));
  const include = parseInclude(query.include);
  const views = rows.map((row) => {
    const view = baseView(row, timezone);
    if (include.has('custom_fields')) view.custom_fields = parseCustomFields(row.custom_fields);
    if (include.has('notes')) view.notes = row.notes;
    if (include.has('avatar')) view.avatar_url = avatarUrl(row.email);
    return view;
  });
  await attachRelated(db, views, include, timezone);
  return { data: views, page: pageOf(request, total) };
}

// --- Read ---------------------------------------------------------------------------------------

export async function getCustomer(db: Db, site: Site, id: number, include: ReadonlySet<Include> = new Set()): Promise<CustomerDetailView> {
  const row = await repository.findCustomer(db, id);
  if (!row) throw notFound('customer_not_found', 'Customer', id);
  const { timezone } = await site();
  const view = detailView(row, timezone);
  await attachRelated(db, [view], include, timezone);
  return view;
}

// --- Create -------------------------------------------------------------------------------------

export interface CreatedCustomer extends CustomerDetailView {
  user_id: null;
  welcome_email_sent: boolean;
}

/** data_inconsistency details for preferred agent/location ids that are missing or inactive. */
async function referenceProblems(db: Db, agentId: number | null | undefined, locationId: number | null | undefined): Promise<ErrorDetails> {
  const problems: ErrorDetails = {};
  if (agentId != null) {
    const status = await repository.agentStatus(db, agentId);
    if (status === undefined) problems.preferred_agent_id = `agent ${agentId} does not exist`;
    else if (status !== 'active') problems.preferred_agent_id = `agent ${agentId} is not active`;
  }
  if (locationId != null) {
    const status = await repository.locationStatus(db, locationId);
    if (status === undefined) problems.preferred_location_id = `location ${locationId} does not exist`;
    else if (status !== 'active') problems.preferred_location_id = `location ${locationId} is not active`;
  }
  return problems;
}

/**
 * Checks the customer's references and inserts it with, when it has an email, its welcome mail, in
 * one transaction that holds the email's lock (as a booking's new customer does) and the catalog's,
 * shared. The unique email key stays the final judge of a taken email: a concurrent create of the
 * same email ends here as email_already_exists like any other, with nothing of this attempt left behind.
 */
export async function persistNewCustomer(db: Db, actor: Actor, columns: repository.NewCustomerColumns, at: string, timezone: string): Promise<CustomerRow> {
  const keys: LockKey[] = [{ shared: CATALOG_LOCK }, ...(columns.email ? [emailLock(columns.email)] : [])];
  try {
    return await lockedTransaction(db, keys, async (trx) => {
      const problems = await referenceProblems(trx, columns.preferred_agent_id, columns.preferred_location_id);
      if (Object.keys(problems).length > 0) {
        throw new AppError('data_inconsistency', 'The customer refers to missing or inactive records', problems);
      }
      // The row, and so its code, is made in each run: a run that met a taken code runs again.
      const created = await repository.insertCustomer(trx, repository.newCustomerRow(columns, at));
      await recordCustomersCreated(trx, actor, [created], timezone);
      if (created.email) {
        await enqueueMail(trx, {
          kind: 'customer_welcome',
          recipient: created.email,
          subject: `Welcome, ${created.first_name}`,
          payload: {
            customer_id: created.id,
            customer_code: created.customer_code,
            customer_name: `${created.first_name} ${created.last_name}`.trim(),
            email: created.email,
          },
        });
      }
      return created;
    });
  } catch (error) {
    if (columns.email && columns.email_lower && isUniqueViolation(error, 'customers', 'email_lower')) {
      throw emailTaken(columns.email, await repository.findIdByEmail(db, columns.email_lower));
    }
    throw error;
  }
}

export async function createCustomer(db: Db, actor: Actor, site: Site, body: CreateCustomerBody): Promise<CreatedCustomer> {
  const { timezone } = await site();
  const { columns, customFields, errors } = cleanCustomerInput(body, { isoCountry: false, today: todayIn(timezone) });
  if (Object.keys(errors).length > 0) {
    throw new AppError('validation_failed', `Invalid customer data: ${Object.keys(errors).join(', ')}`, errors);
  }
  const row = await persistNewCustomer(
    db,
    actor,
    {
      ...columns,
      first_name: columns.first_name ?? '',
      last_name: columns.last_name ?? '',
      avatar_image_id: null,
      custom_fields: JSON.stringify(mergeCustomFields({}, customFields ?? {})),
    },
    nowIso(),
    timezone,
  );
  return { ...detailView(row, timezone), user_id: null, welcome_email_sent: row.email !== null };
}

// --- Update -------------------------------------------------------------------------------------

export interface UpdatedCustomer {
  id: number;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  status: string;
  updated_at: string;
}

function updateFailed(message: string, details: ErrorDetails): AppError {
  return new AppError('customer_update_failed', message, details);
}

const emailOfAnother = () =>
  updateFailed('Customer update failed: the email belongs to another customer', { email: 'is already used by another customer' });

/** Under the customer's lock: merge custom_fields into the current ones and write. */
async function applyUpdate(trx: Db, actor: Actor, timezone: string, id: number, { columns, customFields, errors }: CleanedInput): Promise<CustomerRow> {
  const current = await repository.findCustomer(trx, id);
  if (!current) throw notFound('customer_not_found', 'Customer', id);
  if (Object.keys(errors).length > 0) {
    throw updateFailed(`Customer update failed: invalid ${Object.keys(errors).join(', ')}`, errors);
  }
  const merged = customFields && mergeCustomFields(parseCustomFields(current.custom_fields), customFields);
  const fieldCount = merged === undefined ? 0 : Object.keys(merged).length;
  if (fieldCount > MAX_CUSTOM_FIELDS) {
    throw updateFailed('Customer update failed: invalid custom_fields', {
      custom_fields: `a customer holds at most ${MAX_CUSTOM_FIELDS} custom fields; this change would leave ${fieldCount}`,
    });
  }
  if (Object.keys(columns).length === 0 && merged === undefined) return current;
  const updated = await repository.updateCustomer(trx, id, {
    ...columns,
    ...(merged === undefined ? {} : { custom_fields: JSON.stringify(merged) }),
    updated_at: nowIso(),
  });
  if (!updated) throw notFound('customer_not_found', 'Customer', id);
  // Links mailed to the former address stop opening the customer's bookings.
  if (columns.email_lower !== undefined && columns.email_lower !== current.email_lower) await renewManageLinks(trx, 'customer_id', id);
  const [before, after] = [detailView(current, timezone), detailView(updated, timezone)];
  const previousAttributes = changedAttributes(before, after);
  if (previousAttributes !== undefined) await recordEvent(trx, actor, { type: 'customer.updated', resourceId: id, data: after, previousAttributes });
  return updated;
}

/**
 * Changes only the supplied fields. Read, merge and write hold the customer's lock, so concurrent
 * updates never lose each other's custom fields; the unique email key judges a taken email.
 */
export async function updateCustomer(db: Db, actor: Actor, site: Site, id: number, body: UpdateCustomerBody): Promise<UpdatedCustomer> {
  const { timezone } = await site();
  const input = cleanCustomerInput(body, { isoCountry: true, today: todayIn(timezone) });
  let row: CustomerRow;
  try {
    const keys = [customerLock(id), ...(input.columns.email ? [emailLock(input.columns.email)] : [])];
    row = await lockedTransaction(db, keys, (trx) => applyUpdate(trx, actor, timezone, id, input));
  } catch (error) {
    if (isUniqueViolation(error, 'customers', 'email_lower')) throw emailOfAnother();
    throw error;
  }
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    phone: row.phone,
    status: row.status,
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

// --- Delete -------------------------------------------------------------------------------------

function hasBookings(id: number): AppError {
  return new AppError('customer_has_bookings', `Customer ${id} has bookings and cannot be deleted`);
}

function hasLiveOrders(id: number): AppError {
  return new AppError('customer_has_bookings', `Customer ${id} has orders that are not cancelled and cannot be deleted`, { orders: 'not cancelled' });
}

function hasPayments(id: number): AppError {
  return new AppError('customer_has_bookings', `Customer ${id} has payments on record, which are kept, and cannot be deleted`, { payments: 'on record' });
}

/**
 * Deletes a customer without bookings (spec), with the orders their deleted bookings left behind,
 * cancelled and empty (and any coupon use they held). Payments are records of money: a customer
 * who paid, or on whose orders someone paid, stays. Every writer that refers to the customer or
 * adds to their orders holds their lock, shared. The foreign keys are the final judge: a
 * reference that slips past ends as customer_has_bookings too.
 */
export async function deleteCustomer(db: Db, actor: Actor, site: Site, id: number): Promise<void> {
  const { timezone } = await site();
  try {
    await lockedTransaction(db, [customerLock(id)], async (trx) => {
      const row = await repository.findCustomer(trx, id);
      if (!row) throw notFound('customer_not_found', 'Customer', id);
      const history = await repository.historyOf(trx, id);
      if (history.bookings) throw hasBookings(id);
      if (history.payments) throw hasPayments(id);
      if (history.liveOrders) throw hasLiveOrders(id);
      await repository.deleteCancelledOrdersOf(trx, id);
      await repository.deleteCustomer(trx, id);
      await recordEvent(trx, actor, { type: 'customer.deleted', resourceId: id, data: detailView(row, timezone) });
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw hasBookings(id);
    throw error;
  }
}

import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { offsetOf, pageOf, type Page } from '../../core/pagination.js';
import type { Site } from '../../core/site.js';
import { updatedBounds } from '../../http/list-query.js';
import { toCents } from '../../lib/money.js';
import { daySpan, isoBound } from '../availability/index.js';
import { toListItem, type BookingListView } from './present.js';
import * as repository from './repository.js';
import { requireCalendarDate } from './request.js';
import type { ListQueryInput } from './schemas.js';

/** GET /bookings: a page of bookings matching the query's filters, each as the list shows it. */
export async function listBookings(db: Db, site: Site, query: ListQueryInput): Promise<{ items: BookingListView[]; page: Page }> {
  const filters = await listFilters(site, query);
  const pageRequest = { page: query.page ?? 1, perPage: query.per_page ?? 20 };
  const [total, rows] = await Promise.all([
    repository.countBookings(db, filters),
    repository.listBookings(db, filters, query.sort ?? 'start_date', query.order ?? 'desc', pageRequest.perPage, offsetOf(pageRequest)),
  ]);
  const meta = query.include_meta ? await repository.metaOf(db, rows.map((r) => r.id)) : undefined;
  const { currency } = await site();
  return { items: rows.map((row) => toListItem(row, currency, meta?.get(row.id))), page: pageOf(pageRequest, total) };
}

async function listFilters(site: Site, query: ListQueryInput): Promise<repository.ListFilters> {
  if ((query.meta_key === undefined) !== (query.meta_value === undefined)) {
    const missing = query.meta_key === undefined ? 'meta_key' : 'meta_value';
    throw new AppError('invalid_request', 'meta_key and meta_value go together', { [missing]: 'is required with the other' });
  }
  for (const field of ['date_from', 'date_to', 'created_date_from', 'created_date_to'] as const) {
    const value = query[field];
    if (value !== undefined) requireCalendarDate(field, value);
  }
  const priceCents = (field: 'price_min' | 'price_max'): number | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    const cents = toCents(value);
    if (cents === undefined) throw new AppError('invalid_request', `${field} must be an amount`, { [field]: 'must be an amount' });
    return cents;
  };
  const updated = updatedBounds(query);
  // Creation dates are the site's local dates; created_at holds UTC instants.
  const timezone = query.created_date_from !== undefined || query.created_date_to !== undefined ? (await site()).timezone : 'UTC';
  return {
    statuses: query.status === undefined ? undefined : [query.status === 'confirmed' ? 'approved' : query.status],
    customerId: query.customer_id,
    agentId: query.agent_id,
    serviceId: query.service_id,
    locationId: query.location_id,
    dateFrom: query.date_from,
    dateTo: query.date_to,
    createdFrom: query.created_date_from === undefined ? undefined : isoBound(daySpan(query.created_date_from, timezone).start),
    createdBefore: query.created_date_to === undefined ? undefined : isoBound(daySpan(query.created_date_to, timezone).end),
    updatedAfter: updated.after,
    updatedBefore: updated.before,
    bookingCode: query.booking_code,
    paymentStatus: query.payment_status,
    durationMin: query.duration_min,
    durationMax: query.duration_max,
    priceMinCents: priceCents('price_min'),
    priceMaxCents: priceCents('price_max'),
    customerEmail: query.customer_email,
    customerPhone: query.customer_phone,
    meta: query.meta_key !== undefined && query.meta_value !== undefined ? { key: query.meta_key, value: query.meta_value } : undefined,
    search: query.search,
  };
}

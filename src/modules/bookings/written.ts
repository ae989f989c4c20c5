import { readableCode } from '../../lib/random.js';
import { localDateTime } from '../../lib/time.js';
import { isoOf, type ServiceRow, type Span } from '../availability/index.js';
import type { AppliedCoupon } from '../coupons/index.js';
import type { ManageLinks } from '../manage-links/index.js';
import type { NewBookingOrder } from '../orders/index.js';
import type { NewCustomer } from './customers.js';
import { toDetail, type BookingView } from './present.js';
import type { AgentFacts, CustomerFacts, LocationFacts } from './references.js';
import type { BookingRequest } from './request.js';

/** A booking request that passed every check, ready to be written, with the records it shows. */
export interface PreparedBooking {
  request: BookingRequest;
  service: ServiceRow;
  agent: AgentFacts;
  location: LocationFacts;
  /** The existing customer, or the new one to create. */
  customer: CustomerFacts | NewCustomer;
  span: Span;
  durationMinutes: number;
  /** Minutes kept free around it, as checked: the booking keeps them whatever the service later sets. */
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  priceCents: number;
  /** The coupon applied to the new order, checked under its lock. */
  coupon?: AppliedCoupon;
  timezone: string;
}

/** The new order's total: the price less the coupon's discount (contract §8, nothing else set yet); 0 for a booking created cancelled. */
export function orderTotalOf(item: PreparedBooking): number {
  return item.request.status === 'cancelled' ? 0 : item.priceCents - (item.coupon?.discountCents ?? 0);
}

/** The local fields and UTC instants a booking row stores for a span. */
export function spanColumns(span: Span, timezone: string) {
  const startAt = isoOf(span.start);
  const endAt = isoOf(span.end);
  // "YYYY-MM-DD HH:MM:SS" in the zone
  const start = localDateTime(startAt, timezone);
  const end = localDateTime(endAt, timezone);
  return {
    start_date: start.slice(0, 10),
    start_time: start.slice(11, 16),
    end_date: end.slice(0, 10),
    end_time: end.slice(11, 16),
    timezone,
    start_at: startAt,
    end_at: endAt,
  };
}

/** What a booking's item of its order records about it (item_data); kept current as the booking changes. */
export function bookingItemData(booking: {
  id: number;
  serviceId: number;
  serviceName: string;
  agentId: number;
  locationId: number;
  startDate: string;
  startTime: string;
  duration: number;
}): Record<string, unknown> {
  return {
    booking_id: booking.id,
    service_id: booking.serviceId,
    service_name: booking.serviceName,
    agent_id: booking.agentId,
    location_id: booking.locationId,
    start_date: booking.startDate,
    start_time: booking.startTime,
    duration: booking.duration,
  };
}

/** Meta keys in the order GET /bookings/{id} lists them (by key). */
function sortedMeta(meta: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(meta).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// Rows are written out field by field rather than spread into each other: V8 builds an object
// spread into this many properties as a slow dictionary (for the view, 45 µs instead of 5).

export function bookingRow(item: PreparedBooking, customerId: number, orderId: number, at: string) {
  const span = spanColumns(item.span, item.timezone);
  return {
    booking_code: readableCode(),
    status: item.request.status,
    // A zero-total order is fully paid at once (docs/money.md): its booking is paid.
    payment_status: orderTotalOf(item) === 0 && item.request.status !== 'cancelled' ? ('paid' as const) : ('not_paid' as const),
    service_id: item.service.id,
    agent_id: item.agent.id,
    location_id: item.location.id,
    customer_id: customerId,
    order_id: orderId,
    start_date: span.start_date,
    start_time: span.start_time,
    end_date: span.end_date,
    end_time: span.end_time,
    timezone: span.timezone,
    start_at: span.start_at,
    end_at: span.end_at,
    duration: item.durationMinutes,
    buffer_before: item.bufferBeforeMinutes,
    buffer_after: item.bufferAfterMinutes,
    attendees: item.request.attendees,
    price_cents: item.priceCents,
    notes: item.request.notes,
    customer_comment: null,
    manage_link_version: 1,
    scheduled_at: at,
    calendar_sequence: 0,
    created_at: at,
    updated_at: at,
  };
}

export interface Written {
  item: PreparedBooking;
  id: number;
  row: ReturnType<typeof bookingRow>;
  customer: CustomerFacts;
  order: NewBookingOrder;
}

/** A booking just written, as GET /bookings/{id} shows it: no payment can name it or its order yet. */
export function writtenView({ item, id, row, customer, order }: Written, links: ManageLinks, currency: string): BookingView {
  return toDetail(
    {
      id,
      booking_code: row.booking_code,
      status: row.status,
      payment_status: row.payment_status,
      service_id: row.service_id,
      agent_id: row.agent_id,
      location_id: row.location_id,
      customer_id: row.customer_id,
      order_id: row.order_id,
      start_date: row.start_date,
      start_time: row.start_time,
      end_date: row.end_date,
      end_time: row.end_time,
      timezone: row.timezone,
      start_at: row.start_at,
      end_at: row.end_at,
      duration: row.duration,
      attendees: row.attendees,
      price_cents: row.price_cents,
      notes: row.notes,
      customer_comment: row.customer_comment,
      manage_link_version: row.manage_link_version,
      created_at: row.created_at,
      updated_at: row.updated_at,
      customer_first_name: customer.first_name,
      customer_last_name: customer.last_name,
      customer_email: customer.email,
      customer_phone: customer.phone,
      agent_first_name: item.agent.first_name,
      agent_last_name: item.agent.last_name,
      agent_display_name: item.agent.display_name,
      agent_email: item.agent.email,
      agent_phone: item.agent.phone,
      service_name: item.service.name,
      service_duration: item.service.duration,
      service_price_min_cents: item.service.price_min_cents,
      service_charge_amount_cents: item.service.charge_amount_cents,
      location_name: item.location.name,
      location_address: item.location.full_address,
      location_category_id: item.location.category?.id ?? null,
    },
    {
      order: {
        id: order.id,
        confirmation_code: order.confirmation_code,
        customer_comment: null,
        status: item.request.status === 'cancelled' ? 'cancelled' : 'open',
        fulfillment_status: 'not_fulfilled',
        payment_status: orderTotalOf(item) === 0 && item.request.status !== 'cancelled' ? 'fully_paid' : 'not_paid',
        source_id: null,
        source_url: null,
        total_cents: orderTotalOf(item),
        subtotal_cents: item.request.status === 'cancelled' ? 0 : item.priceCents,
        created_at: order.created_at,
      },
      transactions: [],
      category: item.location.category,
      meta: sortedMeta(item.request.meta),
    },
    links,
    currency,
  );
}

import type { Static } from 'typebox';
import type { Db } from '../../db/database.js';
import { formatCents } from '../../lib/money.js';
import { instantWithOffset } from '../../lib/time.js';
import * as repository from './repository.js';
import type { OrderRow, RelatedBookingRow, TransactionRow } from './repository.js';
import type { BookingDetail, BookingListItem } from './schemas.js';
import type { ManageLinks } from '../manage-links/index.js';

export type BookingView = Static<typeof BookingDetail>;
export type BookingListView = Static<typeof BookingListItem>;

/** The price a service shows: its charge amount when set, else its minimum price (contract §3). */
export function servicePriceCents(service: { charge_amount_cents: number; price_min_cents: number }): number {
  return service.charge_amount_cents > 0 ? service.charge_amount_cents : service.price_min_cents;
}

function fullName(first: string, last: string): string {
  return `${first} ${last}`.trim();
}

export function toDetail(
  row: RelatedBookingRow,
  related: {
    order: OrderRow | undefined;
    transactions: TransactionRow[];
    category: { id: number; name: string } | undefined;
    meta: Record<string, string>;
  },
  manageLinks: ManageLinks,
  currency: string,
): BookingView {
  const links = manageLinks.of(row);
  const agentName = fullName(row.agent_first_name, row.agent_last_name);
  const { order } = related;
  return {
    id: row.id,
    booking_code: row.booking_code,
    status: row.status,
    start_date: row.start_date,
    start_time: row.start_time,
    end_date: row.end_date,
    end_time: row.end_time,
    start_datetime: instantWithOffset(row.start_at, row.timezone),
    end_datetime: instantWithOffset(row.end_at, row.timezone),
    timezone: row.timezone,
    duration: row.duration,
    attendees: row.attendees,
    price: formatCents(row.price_cents),
    currency,
    payment_status: row.payment_status,
    notes: row.notes,
    customer_comment: row.customer_comment,
    service_name: row.service_name,
    service_id: row.service_id,
    agent_id: row.agent_id,
    location_id: row.location_id,
    customer_id: row.customer_id,
    order_id: row.order_id,
    customer: {
      id: row.customer_id,
      first_name: row.customer_first_name,
      last_name: row.customer_last_name,
      full_name: fullName(row.customer_first_name, row.customer_last_name),
      email: row.customer_email,
      phone: row.customer_phone,
    },
    agent: {
      id: row.agent_id,
      full_name: agentName,
      display_name: row.agent_display_name ?? agentName,
      email: row.agent_email,
      phone: row.agent_phone,
    },
    service: {
      id: row.service_id,
      name: row.service_name,
      duration: row.service_duration,
      price: formatCents(servicePriceCents({ charge_amount_cents: row.service_charge_amount_cents, price_min_cents: row.service_price_min_cents })),
    },
    location: {
      id: row.location_id,
      name: row.location_name,
      full_address: row.location_address,
      category: related.category ? [related.category] : [],
    },
    order: order
      ? {
          id: order.id,
          confirmation_code: order.confirmation_code,
          customer_comment: order.customer_comment,
          status: order.status,
          fulfillment_status: order.fulfillment_status,
          payment_status: order.payment_status,
          source_id: order.source_id,
          source_url: order.source_url,
          total: formatCents(order.total_cents),
          subtotal: formatCents(order.subtotal_cents),
          currency,
          created_datetime: instantWithOffset(order.created_at, row.timezone),
        }
      : null,
    transactions: related.transactions.map((t) => ({
      id: t.id,
      order_id: t.order_id,
      booking_id: t.booking_id,
      amount: formatCents(t.amount_cents),
      currency,
      status: t.status,
      processor: t.processor,
      payment_method: t.payment_method,
      payment_portion: t.payment_portion,
      kind: t.kind,
      created_at: t.created_at,
    })),
    service_extras: [],
    meta: related.meta,
    manage_booking_for_agent: links.agent,
    manage_booking_for_customer: links.customer,
    created_datetime: instantWithOffset(row.created_at, row.timezone),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** One booking as GET /bookings/{id} shows it, amounts in `currency`, or undefined when it does not exist. */
export async function loadDetail(db: Db, id: number, links: ManageLinks, currency: string): Promise<BookingView | undefined> {
  const detail = await repository.findBookingDetail(db, id);
  return detail && toDetail(detail.row, detail, links, currency);
}

export function toListItem(row: RelatedBookingRow, currency: string, meta?: Record<string, string>): BookingListView {
  return {
    id: row.id,
    booking_code: row.booking_code,
    status: row.status,
    start_date: row.start_date,
    start_time: row.start_time,
    end_time: row.end_time,
    duration: row.duration,
    price: formatCents(row.price_cents),
    currency,
    payment_status: row.payment_status,
    notes: row.notes,
    agent: {
      id: row.agent_id,
      display_name: row.agent_display_name ?? fullName(row.agent_first_name, row.agent_last_name),
      email: row.agent_email,
    },
    service: {
      id: row.service_id,
      name: row.service_name,
      duration: row.service_duration,
      price: formatCents(servicePriceCents({ charge_amount_cents: row.service_charge_amount_cents, price_min_cents: row.service_price_min_cents })),
    },
    location: { id: row.location_id, name: row.location_name, address: row.location_address },
    customer: {
      id: row.customer_id,
      first_name: row.customer_first_name,
      last_name: row.customer_last_name,
      email: row.customer_email,
      phone: row.customer_phone,
    },
    ...(meta ? { meta } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A booking as its events carry it: its manage links are capabilities, and no stored row holds one. */
export function withoutManageLinks(view: BookingView): Omit<BookingView, 'manage_booking_for_agent' | 'manage_booking_for_customer'> {
  const rest: Partial<BookingView> = { ...view };
  delete rest.manage_booking_for_agent;
  delete rest.manage_booking_for_customer;
  return rest as Omit<BookingView, 'manage_booking_for_agent' | 'manage_booking_for_customer'>;
}

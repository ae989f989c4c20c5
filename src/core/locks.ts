/**
 * Every lock a transaction may take (db/transactions.ts lockedTransaction), by name. A name is
 * the only thing two writers share, so each is made here and nowhere else.
 *
 * Order: PostgreSQL takes a transaction's locks sorted by name, so no two transactions can wait
 * for each other whatever order a caller lists them in; SQLite holds its single write lock,
 * which covers them all. A caller therefore lists what it needs, never in a particular order.
 *
 * - `catalog`: shared by every write that makes a record refer to an agent, service, location or
 *   category (a booking's time, agent, service or location); exclusive for a removal from the
 *   catalog and a change of the site's timezone.
 * - `agent:ID`: every write of an agent's booked time (create, bulk, reschedule, reassign).
 * - `booking:ID`: every write of one booking's row that runs under a lock (update, delete).
 * - `customer:ID`: exclusive for a change or removal of the customer; shared by a write that
 *   refers to them (a booking, order or payment of theirs).
 * - `email:ADDRESS` (lower case): a new customer's or a changed email, so two writers cannot
 *   both take one address.
 * - `order:ID`: every write that moves an order's money or payment state.
 * - `coupon:CODE` (trimmed, lower case): applying or changing a coupon, whose uses are counted.
 * - `webhook-dispatch`: turning events into webhook deliveries, one instance at a time.
 */

/** A lock taken by name: exclusive, or `{ shared }`, which only an exclusive holder of the name waits for. */
export type LockKey = string | { shared: string };

export const CATALOG_LOCK = 'catalog';

export const WEBHOOK_DISPATCH_LOCK = 'webhook-dispatch';

export const agentLock = (agentId: number): string => `agent:${agentId}`;

export const bookingLock = (bookingId: number): string => `booking:${bookingId}`;

export const customerLock = (customerId: number): string => `customer:${customerId}`;

export const emailLock = (email: string): string => `email:${email.toLowerCase()}`;

export const orderLock = (orderId: number): string => `order:${orderId}`;

export const couponLock = (code: string): string => `coupon:${code.trim().toLowerCase()}`;

import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/constraints.js';
import { nowIso } from '../../lib/time.js';
import type { Actor } from '../../core/actor.js';
import { changeCustomerColumns, emailTaken, findCustomerIdByEmail, insertCustomersWithFreeEmails, newCustomerRow, recordCustomersCreated } from '../customers/index.js';
import { renewManageLinks } from '../manage-links/index.js';

/** A customer a booking request creates (spec, POST /bookings: customer.*). */
export interface NewCustomer {
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
}

// The booking write names the refusal through this file.
export { emailTaken };

/** Contract §3: an email in use refuses the request; `exceptId` is the customer allowed to keep it. */
export async function assertEmailFree(db: Db, email: string, exceptId?: number): Promise<void> {
  const existing = await findCustomerIdByEmail(db, email.toLowerCase());
  if (existing !== undefined && existing !== exceptId) throw emailTaken(email, existing);
}

/**
 * The email check runs under the booking's lock, but POST /customers does not take it: should
 * a customer with the email commit in between, the unique index refuses the write and the
 * request is refused as if the check had seen it.
 */
async function guardEmail<T>(email: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error, 'customers', 'email_lower')) throw error;
    throw emailTaken(email, null);
  }
}

/**
 * Inserts the customers bookings name, in one statement, with their customer.created events;
 * their ids in the same order. No welcome mail (only POST /customers sends one). The email checks run under the bookings' locks,
 * but POST /customers does not take them: should a customer with one of the emails commit in
 * between, that row is not inserted and the request is refused as if the check had seen it.
 */
export async function insertBookingCustomers(db: Db, actor: Actor, timezone: string, customers: readonly NewCustomer[]): Promise<number[]> {
  if (customers.length === 0) return [];
  const at = nowIso();
  const rows = await insertCustomersWithFreeEmails(
    db,
    customers.map((customer) =>
      newCustomerRow(
        { first_name: customer.first_name, last_name: customer.last_name, email: customer.email, email_lower: customer.email.toLowerCase(), phone: customer.phone },
        at,
      ),
    ),
  );
  await recordCustomersCreated(db, actor, rows, timezone);
  const ids = new Map(rows.map((row) => [row.email_lower, row.id]));
  return customers.map((customer) => {
    const id = ids.get(customer.email.toLowerCase());
    if (id === undefined) throw emailTaken(customer.email, null);
    return id;
  });
}

export interface CustomerChanges {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string | null;
}

/** Changes the booking's customer's own fields, with the customer.updated event. */
export async function updateBookingCustomer(db: Db, actor: Actor, timezone: string, id: number, changes: CustomerChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  const write = () =>
    changeCustomerColumns(db, actor, timezone, id, {
      ...changes,
      ...(changes.email !== undefined ? { email_lower: changes.email.toLowerCase() } : {}),
      updated_at: nowIso(),
    });
  const { before } = await (changes.email === undefined ? write() : guardEmail(changes.email, write));
  // Links mailed to the former address stop opening the customer's bookings.
  if (changes.email !== undefined && before.email_lower !== changes.email.toLowerCase()) await renewManageLinks(db, 'customer_id', id);
}

import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import { newCustomerRow } from '../customers/index.js';
import { renewAccessKeys } from '../manage-links/index.js';

/** A customer a booking request creates (spec, POST /bookings: customer.*). */
export interface NewCustomer {
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
}

export function findCustomer(db: Db, id: number) {
  return db.selectFrom('customers').select(['id', 'first_name', 'last_name', 'email', 'phone']).where('id', '=', id).executeTakeFirst();
}

export async function customerIdByEmail(db: Db, email: string): Promise<number | undefined> {
  const row = await db.selectFrom('customers').select('id').where('email_lower', '=', email.toLowerCase()).executeTakeFirst();
  return row?.id;
}

/** Contract §3: the refusal of an email in use (the customer who has it, when known). */
export function emailTaken(email: string, existingCustomerId: number | null): AppError {
  return new AppError('email_already_exists', `A customer with the email ${email} already exists`, {
    email,
    existing_customer_id: existingCustomerId,
  });
}

/** Contract §3: an email in use refuses the request; `exceptId` is the customer allowed to keep it. */
export async function assertEmailFree(db: Db, email: string, exceptId?: number): Promise<void> {
  const existing = await customerIdByEmail(db, email);
  if (existing !== undefined && existing !== exceptId) throw emailTaken(email, existing);
}

/** True for the unique-index violation on customers.email_lower, in either dialect. */
function isEmailTaken(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return typeof constraint === 'string' && constraint.includes('email_lower');
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('customers.email_lower');
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
    if (!isEmailTaken(error)) throw error;
    throw emailTaken(email, null);
  }
}

/**
 * Inserts the customers bookings name, in one statement; their ids in the same order. No
 * welcome mail (only POST /customers sends one). The email checks run under the bookings' locks,
 * but POST /customers does not take them: should a customer with one of the emails commit in
 * between, that row is not inserted and the request is refused as if the check had seen it.
 */
export async function insertBookingCustomers(db: Db, customers: readonly NewCustomer[]): Promise<number[]> {
  if (customers.length === 0) return [];
  const at = nowIso();
  const rows = await db
    .insertInto('customers')
    .values(
      customers.map((customer) =>
        newCustomerRow(
          { first_name: customer.first_name, last_name: customer.last_name, email: customer.email, email_lower: customer.email.toLowerCase(), phone: customer.phone },
          at,
        ),
      ),
    )
    .onConflict((oc) => oc.column('email_lower').doNothing())
    .returning(['id', 'email_lower'])
    .execute();
  const ids = new Map(rows.map((row) => [row.email_lower, row.id]));
  return customers.map((customer) => {
    const id = ids.get(customer.email.toLowerCase());
    if (id === undefined) throw emailTaken(customer.email, null);
    return id;
  });
}

/** insertBookingCustomers for one customer. */
export async function insertBookingCustomer(db: Db, customer: NewCustomer): Promise<number> {
  return (await insertBookingCustomers(db, [customer]))[0] as number;
}

export interface CustomerChanges {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string | null;
}

export async function updateBookingCustomer(db: Db, id: number, changes: CustomerChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  const before = changes.email === undefined ? undefined : await db.selectFrom('customers').select('email_lower').where('id', '=', id).executeTakeFirst();
  const write = () =>
    db
      .updateTable('customers')
      .set({
        ...changes,
        ...(changes.email !== undefined ? { email_lower: changes.email.toLowerCase() } : {}),
        updated_at: nowIso(),
      })
      .where('id', '=', id)
      .execute();
  await (changes.email === undefined ? write() : guardEmail(changes.email, write));
  // Links mailed to the former address stop opening the customer's bookings.
  if (changes.email !== undefined && before?.email_lower !== changes.email.toLowerCase()) await renewAccessKeys(db, 'customer_id', id);
}

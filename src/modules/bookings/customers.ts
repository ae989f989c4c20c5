import type { Db } from '../../db/database.js';
import { AppError } from '../../http/errors.js';
import { nowIso } from '../../lib/time.js';
import { newCustomerRow } from '../customers/repository.js';

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

/** Contract §3: an email in use refuses the request; `exceptId` is the customer allowed to keep it. */
export async function assertEmailFree(db: Db, email: string, exceptId?: number): Promise<void> {
  const existing = await customerIdByEmail(db, email);
  if (existing !== undefined && existing !== exceptId) {
    throw new AppError('email_already_exists', `A customer with the email ${email} already exists`, {
      email,
      existing_customer_id: existing,
    });
  }
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
    throw new AppError('email_already_exists', `A customer with the email ${email} already exists`, { email, existing_customer_id: null });
  }
}

/** Inserts the customer a booking names; no welcome mail (only POST /customers sends one). */
export async function insertBookingCustomer(db: Db, customer: NewCustomer): Promise<number> {
  const { id } = await guardEmail(customer.email, () => db
    .insertInto('customers')
    .values(
      newCustomerRow(
        { first_name: customer.first_name, last_name: customer.last_name, email: customer.email, email_lower: customer.email.toLowerCase(), phone: customer.phone },
        nowIso(),
      ),
    )
    .returning('id')
    .executeTakeFirstOrThrow());
  return id;
}

export interface CustomerChanges {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string | null;
}

export async function updateBookingCustomer(db: Db, id: number, changes: CustomerChanges): Promise<void> {
  if (Object.keys(changes).length === 0) return;
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
}

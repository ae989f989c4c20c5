import type { Kysely } from 'kysely';

/**
 * A booking's detail lists the payments recorded against the booking or its order. Without an
 * index on booking_id, every read of a booking scanned the whole transactions table; with it,
 * both halves of the condition are index searches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('transactions_booking').on('transactions').column('booking_id').execute();
}

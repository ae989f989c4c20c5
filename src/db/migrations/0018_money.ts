import { sql, type Kysely } from 'kysely';

/**
 * An order item is `active` or `cancelled` (its booking was cancelled): the order's subtotal is
 * the sum of its active items. An order keeps its net paid (succeeded captures − succeeded refunds, docs/money.md) beside its
 * total, so that every order and list shows `amount_paid` and `balance_due` without summing its
 * transactions; the ledger writes it with the payment status in the transaction that moves money.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('amount_paid_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update orders set amount_paid_cents = coalesce((
    select sum(case when t.kind = 'refund' then -t.amount_cents else t.amount_cents end)
    from transactions as t where t.order_id = orders.id and t.status = 'succeeded'), 0)`.execute(db);
  await db.schema
    .alterTable('order_items')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .execute();
  await sql`update order_items set status = 'cancelled'
    where booking_id in (select b.id from bookings as b where b.status = 'cancelled')`.execute(db);
}

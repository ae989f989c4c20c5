import { sql, type Kysely } from 'kysely';

/**
 * An order that closes (docs/money.md) voids the invoices it had not settled; brought back, it
 * gives them the status they had. Only those: an invoice voided by hand stays void. Invoices
 * already voided by a close are taken as closed from open, as before this column.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('status_before_close', 'text').execute();
  await sql`update invoices set status_before_close = 'open'
    where status = 'void' and order_id in (select o.id from orders as o where o.status = 'cancelled')`.execute(db);
}

import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { totalSpent, totalSpentQuery } from '../../src/modules/customers/repository.js';
import { insertCustomer } from '../fixtures.js';
import { DIALECTS, useTestApp } from '../helper.js';
import { insertOrder, insertTransaction } from './orders.js';

describe.each(DIALECTS)('money a page of customers spent (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('sums the succeeded payments of each customer’s orders, and nothing else', async () => {
    const [payer, failedOnly, noOrders] = [await insertCustomer(t.db), await insertCustomer(t.db), await insertCustomer(t.db)];
    const first = await insertOrder(t.db, payer);
    const second = await insertOrder(t.db, payer);
    await insertTransaction(t.db, { orderId: first, customerId: payer, cents: 4500, status: 'succeeded' });
    await insertTransaction(t.db, { orderId: first, customerId: payer, cents: 1000, status: 'failed' });
    await insertTransaction(t.db, { orderId: second, customerId: payer, cents: 2550, status: 'succeeded' });
    const unpaid = await insertOrder(t.db, failedOnly);
    await insertTransaction(t.db, { orderId: unpaid, customerId: failedOnly, cents: 900, status: 'processing' });

    const spent = await totalSpent(t.db, [payer, failedOnly, noOrders]);
    expect(spent.get(payer)).toBe(7050);
    expect(spent.get(failedOnly) ?? 0).toBe(0);
    expect(spent.get(noOrders) ?? 0).toBe(0);
  });

  // SQLite's planner judges by the indexes alone and, given the join, started from every succeeded
  // payment of the site; PostgreSQL's judges by table statistics, which an almost empty test
  // table cannot give, so only SQLite's plan is asserted.
  it.runIf(dialect === 'sqlite')('reaches the payments from the page’s orders through (order_id, status), not from every succeeded payment', async () => {
    const compiled = totalSpentQuery(t.db, [1, 2, 3]).compile();
    const plan = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
    const text = plan.rows.map((row) => row.detail).join('\n');
    expect(text).toMatch(/USING (COVERING )?INDEX orders_customer \(customer_id=\?\)/);
    expect(text).toMatch(/USING INDEX transactions_order \(order_id=\? AND status=\?\)/);
    expect(text).not.toMatch(/transactions_status/);
  });
});

import { DateTime } from 'luxon';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_MS } from '../../src/modules/webhooks/index.js';
import { MONDAY, newSite, requester, type Site } from '../bookings/setup.js';
import { buildTestApp, DIALECTS, useTestApp, type Json } from '../helper.js';
import { feedSettled } from '../events/settle.js';
import { startReceiver, type Receiver } from './receiver.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
// A short timeout so that an endpoint that never answers costs the test little; no jitter, so the schedule is exact.
const DELIVERY = { webhookDelivery: { timeoutMs: 300, random: () => 0 } };

interface Delivered {
  id: number;
  type: string;
  data: Json;
  previous_attributes: Json;
}

describe.each(DIALECTS)('webhook delivery (%s)', (dialect) => {
  const t = useTestApp(dialect, ENV, { appOptions: DELIVERY });
  const call = requester(t);
  let receiver: Receiver;
  let site: Site;
  let day = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    site = await newSite(t.db);
  });
  afterAll(async () => receiver.close());
  beforeEach(async () => {
    // Each test subscribes its own endpoints and hears only what it makes.
    await t.db.deleteFrom('webhook_attempts').execute();
    await t.db.deleteFrom('webhook_deliveries').execute();
    await t.db.deleteFrom('webhook_endpoints').execute();
    await settledRound();
    receiver.received.length = 0;
    receiver.answers.length = 0;
  });

  /** A round of the runner once the feed shows every committed event (see feedSettled). */
  const settledRound = async (now?: Date) => {
    await feedSettled(t.db);
    return t.app.jobs.runOnce(now);
  };
  const subscribe = async (payload: object = {}): Promise<{ id: number; secret: string }> => {
    const res = await call('POST', '/webhooks', { url: receiver.url, ...payload });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: number; secret: string };
  };
  const book = async () => {
    // Weekdays from Monday 3 March 2031 on, one booking each.
    const date = DateTime.fromISO('2031-03-03').plus({ days: day + 2 * Math.floor(day / 5) });
    day += 1;
    const res = await call('POST', '/bookings', { service_id: site.serviceId, agent_id: site.agentId, start_date: date.toISODate(), start_time: '10:00', customer_id: site.customerId, send_confirmation: false });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: number; order: { id: number } };
  };
  /** What arrived, in the order of the events: deliveries go out several at once, in no promised order. */
  const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as Delivered).sort((a, b) => a.id - b.id);
  const deliveries = async (endpointId: number): Promise<Json[]> => {
    const res = await call('GET', `/webhooks/${endpointId}/deliveries?per_page=100`);
    return res.json<{ data: Json[] }>().data;
  };

  it('delivers every booking event, signed so that the Standard Webhooks library verifies it', async () => {
    const endpoint = await subscribe({ event_types: ['booking.created', 'booking.updated', 'booking.rescheduled', 'booking.status_changed', 'booking.cancelled', 'booking.deleted'] });
    const booking = await book();
    await call('PUT', `/bookings/${booking.id}`, { notes: 'aisle' });
    await call('PUT', `/bookings/${booking.id}`, { start_date: MONDAY, start_time: '09:00' });
    await call('PUT', `/bookings/${booking.id}`, { status: 'approved' });
    await call('PUT', `/bookings/${booking.id}`, { status: 'cancelled' });
    await call('DELETE', `/bookings/${booking.id}`);
    const round = await settledRound();
    expect(round.webhooks).toEqual({ succeeded: 6 });

    const verifier = new Webhook(endpoint.secret);
    for (const request of receiver.received) {
      expect(() => verifier.verify(request.body, request.headers)).not.toThrow();
      expect(request.headers['content-type']).toBe('application/json');
    }
    const events = bodies();
    expect(events.map((e) => e.type)).toEqual(['booking.created', 'booking.updated', 'booking.rescheduled', 'booking.status_changed', 'booking.cancelled', 'booking.deleted']);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(events.map((e) => `evt_${e.id}`).sort());
    expect(events[0]!.data).toMatchObject({ id: booking.id, status: 'pending' });
    expect(events[0]!.data).not.toHaveProperty('manage_booking_for_customer');
    expect(events[1]!.previous_attributes).toMatchObject({ notes: null });
    expect(events[2]!.previous_attributes).toMatchObject({ start_time: '10:00' });
    expect(events[2]!.data).toMatchObject({ start_date: MONDAY, start_time: '09:00' });
    // The same event as the feed has it.
    const feed = ((await call('GET', '/events?limit=1000')).json().data as Json[]).filter((e) => events.some((d) => d.id === e.id));
    expect(feed).toEqual(events);
    // A tampered body does not verify.
    const first = receiver.received[0]!;
    expect(() => verifier.verify(first.body.replace('"id":', '"id": '), first.headers)).toThrow();
  });

  it('every kind of event of customers, orders, invoices and payments arrives, signed', async () => {
    const endpoint = await subscribe({ event_types: ['customer.created', 'customer.updated', 'customer.deleted', 'order.updated', 'order.cancelled', 'invoice.paid', 'invoice.voided', 'payment.created', 'payment.updated', 'payment.refunded'] });
    const customer = (await call('POST', '/customers', { first_name: 'Cy', last_name: 'Hook', email: `cy.${dialect}@example.test` })).json<{ data: { id: number } }>().data;
    await call('PUT', `/customers/${customer.id}`, { phone: '+49 30 5550100' });
    await call('DELETE', `/customers/${customer.id}`);
    const paid = await book();
    const payment = (await call('POST', '/payments', { order_id: paid.order.id, amount: 45 })).json<{ data: { id: number } }>().data;
    await call('PUT', `/payments/${payment.id}`, { notes: 'card' });
    await call('PUT', `/bookings/${paid.id}`, { status: 'cancelled' });
    await call('POST', '/payments', { order_id: paid.order.id, amount: 45, kind: 'refund' });
    const unpaid = await book();
    const [invoice] = (await call('GET', `/orders/${unpaid.order.id}/invoices`)).json<{ data: { id: number }[] }>().data;
    await call('PUT', `/orders/${unpaid.order.id}/invoices/${invoice!.id}`, { status: 'void' });
    await settledRound();

    const verifier = new Webhook(endpoint.secret);
    for (const request of receiver.received) expect(() => verifier.verify(request.body, request.headers)).not.toThrow();
    expect(new Set(bodies().map((b) => b.type))).toEqual(
      new Set(['customer.created', 'customer.updated', 'customer.deleted', 'order.updated', 'order.cancelled', 'invoice.paid', 'invoice.voided', 'payment.created', 'payment.updated', 'payment.refunded']),
    );
    const refunded = bodies().find((b) => b.type === 'payment.refunded')!;
    expect(refunded.data).toMatchObject({ amount: '45.00', kind: 'refund', order_id: paid.order.id });
    expect(bodies().find((b) => b.type === 'customer.updated')!.previous_attributes).toMatchObject({ phone: null });
  });

  it('retries a 500 and an endpoint that does not answer on the schedule, recording each attempt', async () => {
    const endpoint = await subscribe();
    await book();
    receiver.answers.push(500, 'hold');
    const t0 = new Date();
    expect((await settledRound(t0)).webhooks).toEqual({ retrying: 1 });
    const [first] = await deliveries(endpoint.id);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, next_attempt_at: new Date(t0.getTime() + RETRY_SCHEDULE_MS[0]!).toISOString() });
    expect(first.attempt_log[0]).toMatchObject({ status_code: 500, response_body: 'refused with 500', error: 'answered 500' });

    // Not due a moment before.
    expect((await settledRound(new Date(t0.getTime() + RETRY_SCHEDULE_MS[0]! - 1))).webhooks).toEqual({});
    const t1 = new Date(t0.getTime() + RETRY_SCHEDULE_MS[0]!);
    expect((await settledRound(t1)).webhooks).toEqual({ retrying: 1 });
    const [second] = await deliveries(endpoint.id);
    expect(second).toMatchObject({ attempts: 2, last_status_code: null, next_attempt_at: new Date(t1.getTime() + RETRY_SCHEDULE_MS[1]!).toISOString() });
    expect(second.attempt_log[1]).toMatchObject({ status_code: null, error: 'no answer within 300 ms' });

    expect((await settledRound(new Date(t1.getTime() + RETRY_SCHEDULE_MS[1]!))).webhooks).toEqual({ succeeded: 1 });
    const [done] = await deliveries(endpoint.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 204, next_attempt_at: null });
    expect(done.attempt_log).toHaveLength(3);
    // One event, three attempts, one webhook-id: the receiver can tell a retry from a new event.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('gives up after about three days of failures and disables the endpoint', async () => {
    const endpoint = await subscribe();
    await book();
    receiver.answers.push(...Array<number>(20).fill(503));
    let now = new Date();
    for (;;) {
      await settledRound(now);
      const [delivery] = await deliveries(endpoint.id);
      if (delivery.status !== 'pending') break;
      now = new Date(delivery.next_attempt_at as string);
    }
    const [failed] = await deliveries(endpoint.id);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.attempts).toBe(RETRY_SCHEDULE_MS.length + 1);
    const shown = (await call('GET', `/webhooks/${endpoint.id}`)).json().data;
    expect(shown).toMatchObject({ status: 'disabled', disabled_reason: expect.stringMatching(/failed for three days/) });
    // Disabled, it receives nothing more.
    const heard = receiver.received.length;
    await book();
    await settledRound(new Date(now.getTime() + 60_000));
    expect(receiver.received).toHaveLength(heard);
    // Enabled again, it starts afresh.
    expect((await call('PUT', `/webhooks/${endpoint.id}`, { status: 'enabled' })).json().data).toMatchObject({ status: 'enabled', disabled_reason: null, failing_since: null });
  });

  it('a disabled endpoint receives nothing; event types filter; test and retry endpoints send', async () => {
    const off = await subscribe({ status: 'disabled' });
    const cancelsOnly = await subscribe({ event_types: ['booking.cancelled'] });
    const booking = await book();
    await call('PUT', `/bookings/${booking.id}`, { status: 'cancelled' });
    await settledRound();
    expect(bodies().map((b) => b.type)).toEqual(['booking.cancelled']);
    expect(await deliveries(off.id)).toEqual([]);

    const tested = await call('POST', `/webhooks/${cancelsOnly.id}/test`);
    expect(tested.statusCode).toBe(202);
    await settledRound();
    const test = receiver.received.at(-1)!;
    expect(JSON.parse(test.body)).toMatchObject({ type: 'webhook.test', data: { webhook_id: cancelsOnly.id } });
    expect(() => new Webhook(cancelsOnly.secret).verify(test.body, test.headers)).not.toThrow();

    const [delivered] = (await deliveries(cancelsOnly.id)).filter((d) => d.event_type === 'booking.cancelled');
    const retried = await call('POST', `/webhooks/${cancelsOnly.id}/deliveries/${delivered.id}/retry`);
    expect(retried.statusCode).toBe(202);
    expect(retried.json().data).toMatchObject({ status: 'pending' });
    await settledRound();
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect((await call('POST', `/webhooks/${cancelsOnly.id}/deliveries/999999/retry`)).statusCode).toBe(404);
  });

  it('during a rotation, each delivery verifies with the old secret and with the new one', async () => {
    const endpoint = await subscribe();
    const { secret } = (await call('POST', `/webhooks/${endpoint.id}/rotate-secret`)).json().data;
    await book();
    await settledRound();
    const [request] = receiver.received;
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(endpoint.secret).verify(request!.body, request!.headers)).not.toThrow();
    expect(() => new Webhook(secret as string).verify(request!.body, request!.headers)).not.toThrow();
  });

  it('two instances on one database deliver each event once', async () => {
    await subscribe();
    for (let i = 0; i < 12; i++) await book();
    const other = await buildTestApp(t.databaseUrl, ENV, { appOptions: DELIVERY });
    try {
      await feedSettled(t.db);
      await Promise.all([t.app.jobs.runOnce(), other.jobs.runOnce(), t.app.jobs.runOnce(), other.jobs.runOnce()]);
      await Promise.all([t.app.jobs.runOnce(), other.jobs.runOnce()]);
    } finally {
      await other.close();
    }
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
  });
});

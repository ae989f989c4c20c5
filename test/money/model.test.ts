import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { connectAgent, insertService } from '../fixtures.js';
import { DIALECTS, useTestApp, type Json } from '../helper.js';
import { newSite, requester } from '../bookings/setup.js';

/**
 * Model-based test of the money trail (docs/money.md): random sequences of bookings created (with
 * and without a coupon, of a service with and without a deposit), captures and refunds (part,
 * whole, too much), captures failing, invoices set to paid or void, bookings cancelled by each
 * path and brought back, rescheduled at a new price, deleted; after every step the API agrees
 * with a model written here, independently of src/modules/orders/totals.ts.
 */

const PRICE = 4_500;
const DEPOSIT = 1_000;
const COUPON = 1_000;
const DAYS = ['2030-01-07', '2030-01-08', '2030-01-09', '2030-01-10', '2030-01-11'];
const SLOTS = DAYS.flatMap((day) => ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'].map((time) => ({ day, time })));

type InvoiceState = 'open' | 'partially_paid' | 'paid' | 'void';

interface Capture {
  id: number;
  cents: number;
  failed: boolean;
}

interface OrderModel {
  orderId: number;
  bookingId: number;
  link: string;
  price: number;
  coupon: boolean;
  booking: 'approved' | 'cancelled' | 'deleted';
  status: 'open' | 'cancelled';
  total: number;
  captures: Capture[];
  refunded: number;
  /** closedFrom: the status a close voided the invoice from, given back when the order reopens. */
  invoices: { id: number; portion: string; status: InvoiceState; charge: number; closedFrom?: InvoiceState }[];
}

interface Model {
  orders: OrderModel[];
  slot: number;
}

interface Real {
  request: ReturnType<typeof requester>;
  serviceId: number;
  depositServiceId: number;
  agentId: number;
  customerId: number;
  coupon: string;
}

const captured = (o: OrderModel) => o.captures.filter((c) => !c.failed).reduce((sum, c) => sum + c.cents, 0);
const net = (o: OrderModel) => captured(o) - o.refunded;
const balance = (o: OrderModel) => Math.max(0, o.total - net(o));
const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.trunc(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

function paymentStatus(o: OrderModel): string {
  const paid = net(o);
  if (o.refunded > 0 && paid <= 0) return 'refunded';
  if (o.refunded > 0 && paid !== o.total) return 'partially_refunded';
  if (paid > 0 && paid >= o.total) return 'fully_paid';
  if (paid <= 0 && o.total <= 0 && o.status !== 'cancelled') return 'fully_paid';
  return paid > 0 ? 'partially_paid' : 'not_paid';
}

const BOOKING_STATUS: Record<string, string> = {
  not_paid: 'not_paid',
  partially_paid: 'partially_paid',
  partially_refunded: 'partially_paid',
  fully_paid: 'paid',
  refunded: 'refunded',
};

/** Captures fill the invoices that are not void in order, each up to its charge. */
function deriveInvoices(o: OrderModel): void {
  let left = captured(o);
  for (const invoice of o.invoices) {
    if (invoice.status === 'void') continue;
    const covered = Math.min(left, invoice.charge);
    left -= covered;
    invoice.status = covered >= invoice.charge ? 'paid' : covered > 0 ? 'partially_paid' : 'open';
  }
}

/** The order's total from its live booking and coupon; invoices still to be paid follow a new one. */
function followTotal(o: OrderModel): void {
  const subtotal = o.booking === 'approved' ? o.price : 0;
  const total = subtotal - (o.coupon ? Math.min(COUPON, subtotal) : 0);
  if (total === o.total) return;
  o.total = total;
  const deposits = o.invoices.filter((i) => i.portion === 'deposit').reduce((sum, i) => sum + i.charge, 0);
  for (const invoice of o.invoices) {
    if (invoice.status !== 'open' && invoice.status !== 'partially_paid') continue;
    if (invoice.portion === 'full') invoice.charge = total;
    if (invoice.portion === 'remaining') invoice.charge = Math.max(0, total - deposits);
  }
}

/** The ledger's closing rule: an open order without a live booking closes once it holds nothing. */
function followLedger(o: OrderModel): void {
  if (o.status === 'open' && net(o) === 0 && o.booking !== 'approved') {
    o.status = 'cancelled';
    for (const invoice of o.invoices) {
      if (invoice.status === 'paid' || invoice.status === 'void') continue;
      invoice.closedFrom = invoice.status;
      invoice.status = 'void';
    }
  }
  deriveInvoices(o);
}

function cancelInModel(o: OrderModel): void {
  o.booking = 'cancelled';
  followTotal(o);
  followLedger(o);
}

async function agree(m: Model, r: Real, o: OrderModel | undefined): Promise<void> {
  if (o !== undefined) {
    const order: Json = (await r.request('GET', `/orders/${o.orderId}`)).json();
    const status = paymentStatus(o);
    expect(order).toMatchObject({
      status: o.status,
      total: money(o.total),
      payment_status: status,
      amount_paid: money(net(o)),
      balance_due: money(o.total - net(o)),
    });
    expect(net(o)).toBeGreaterThanOrEqual(0);
    const invoices = (await r.request('GET', `/orders/${o.orderId}/invoices`)).json().data as Json[];
    expect(invoices.map((i) => [i.payment_portion as string, i.status as string, i.charge_amount as string])).toEqual(o.invoices.map((i) => [i.portion, i.status, money(i.charge)]));
    if (o.booking !== 'deleted') {
      const booking: Json = (await r.request('GET', `/bookings/${o.bookingId}`)).json().data;
      expect(booking).toMatchObject({ status: o.booking, payment_status: BOOKING_STATUS[status] });
    }
  }
  const coupon: Json = (await r.request('GET', `/coupons/${r.coupon}`)).json().data;
  expect(coupon.usage_count).toBe(m.orders.filter((x) => x.coupon && x.status === 'open').length);
  const customer: Json = (await r.request('GET', `/customers/${r.customerId}?include=stats`)).json().data;
  expect(customer.stats.total_spent).toBe(money(m.orders.reduce((sum, x) => sum + net(x), 0)));
}

const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly deposit: boolean,
    readonly coupon: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.slot < SLOTS.length;
  async run(m: Model, r: Real): Promise<void> {
    const slot = SLOTS[m.slot++] as (typeof SLOTS)[number];
    const res = await r.request('POST', '/bookings', {
      service_id: this.deposit ? r.depositServiceId : r.serviceId,
      agent_id: r.agentId,
      customer_id: r.customerId,
      start_date: slot.day,
      start_time: slot.time,
      status: 'approved',
      send_confirmation: false,
      ...(this.coupon ? { coupon_code: r.coupon } : {}),
    });
    expect(res.statusCode, res.body).toBe(201);
    const created: Json = res.json().data;
    const invoices = (await r.request('GET', `/orders/${created.order.id}/invoices`)).json().data as Json[];
    const total = PRICE - (this.coupon ? COUPON : 0);
    const charges = this.deposit ? [['deposit', DEPOSIT], ['remaining', total - DEPOSIT]] : [['full', total]];
    const o: OrderModel = {
      orderId: created.order.id,
      bookingId: created.id,
      link: (await r.request('GET', `/bookings/${created.id}`)).json().data.manage_booking_for_customer,
      price: PRICE,
      coupon: this.coupon,
      booking: 'approved',
      status: 'open',
      total,
      captures: [],
      refunded: 0,
      invoices: charges.map(([portion, charge], i) => ({ id: invoices[i]?.id as number, portion: portion as string, status: 'open', charge: charge as number })),
    };
    m.orders.push(o);
    await agree(m, r, o);
  }
  toString = () => `create(${this.deposit ? 'deposit' : 'plain'}${this.coupon ? ', coupon' : ''})`;
}

type Size = 'part' | 'whole' | 'over';
const sizeOf = (size: Size, limit: number) => (size === 'part' ? Math.max(1, Math.floor(limit / 2)) : size === 'whole' ? Math.max(1, limit) : limit + 1);

class Pay implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: 'capture' | 'refund',
    readonly size: Size,
    readonly n: number,
  ) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(m.orders, this.n) as OrderModel;
    const limit = this.kind === 'capture' ? balance(o) : net(o);
    const cents = sizeOf(this.size, limit);
    const res = await r.request('POST', '/payments', { order_id: o.orderId, amount: cents / 100, kind: this.kind });
    if (cents <= limit) {
      expect(res.statusCode, res.body).toBe(201);
      if (this.kind === 'capture') o.captures.push({ id: res.json().data.id as number, cents, failed: false });
      else o.refunded += cents;
      followLedger(o);
    } else {
      expect(res.statusCode).toBe(422);
      expect(res.json().details.amount).toContain(money(limit));
    }
    await agree(m, r, o);
  }
  toString = () => `${this.kind}(${this.size}, #${this.n})`;
}

class FailCapture implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => m.orders.some((o) => o.captures.some((c) => !c.failed && c.id > 0));
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(
      m.orders.filter((x) => x.captures.some((c) => !c.failed)),
      this.n,
    ) as OrderModel;
    const capture = pick(
      o.captures.filter((c) => !c.failed),
      this.n,
    ) as Capture;
    const res = await r.request('PUT', `/payments/${capture.id}`, { status: 'failed' });
    if (net(o) - capture.cents >= 0) {
      expect(res.statusCode, res.body).toBe(200);
      capture.failed = true;
      followLedger(o);
    } else {
      expect(res.statusCode).toBe(422);
    }
    await agree(m, r, o);
  }
  toString = () => `failCapture(#${this.n})`;
}

class SetInvoice implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly status: 'paid' | 'void',
    readonly n: number,
  ) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(m.orders, this.n) as OrderModel;
    const invoice = pick(o.invoices, this.n >> 2) as OrderModel['invoices'][number];
    const res = await r.request('PUT', `/orders/${o.orderId}/invoices/${invoice.id}`, { status: this.status });
    if (this.status === 'void') {
      if (invoice.status === 'paid') {
        expect(res.statusCode).toBe(422);
      } else {
        expect(res.statusCode, res.body).toBe(200);
        invoice.status = 'void';
      }
    } else if (o.status === 'cancelled') {
      // Nothing is collected on a cancelled order.
      expect(res.statusCode, res.body).toBe(422);
    } else {
      expect(res.statusCode, res.body).toBe(200);
      if (invoice.status === 'void') invoice.status = 'open';
      // What the captures leave of this invoice uncovered, as they fill the invoices in order.
      let left = captured(o);
      let lacking = 0;
      for (const each of o.invoices) {
        if (each.status === 'void') continue;
        const covered = Math.min(left, each.charge);
        left -= covered;
        if (each === invoice) lacking = each.charge - covered;
      }
      const cents = Math.min(lacking, balance(o));
      if (cents > 0) {
        const recorded = (await r.request('GET', `/orders/${o.orderId}/transactions?per_page=100`)).json().data as Json[];
        o.captures.push({ id: recorded.at(-1)?.id as number, cents, failed: false });
      }
      followLedger(o);
    }
    await agree(m, r, o);
  }
  toString = () => `invoice(${this.status}, #${this.n})`;
}

type Way = 'put' | 'link' | 'order';

class Cancel implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly way: Way,
    readonly n: number,
  ) {}
  check = (m: Readonly<Model>) => m.orders.some((o) => o.booking === 'approved');
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(
      m.orders.filter((x) => x.booking === 'approved'),
      this.n,
    ) as OrderModel;
    if (this.way === 'put') {
      expect((await r.request('PUT', `/bookings/${o.bookingId}`, { status: 'cancelled' })).statusCode).toBe(200);
    } else if (this.way === 'order') {
      expect((await r.request('PUT', `/orders/${o.orderId}`, { status: 'cancelled' })).statusCode).toBe(200);
    } else {
      const url = new URL(o.link);
      const form = new URLSearchParams({ role: 'customer', key: url.searchParams.get('key') ?? '' }).toString();
      const res = await r.request('POST', `LINK${url.pathname}/cancel`, { form });
      expect(res.statusCode).toBe(303);
    }
    cancelInModel(o);
    await agree(m, r, o);
  }
  toString = () => `cancel(${this.way}, #${this.n})`;
}

class Restore implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => m.orders.some((o) => o.booking === 'cancelled');
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(
      m.orders.filter((x) => x.booking === 'cancelled'),
      this.n,
    ) as OrderModel;
    const res = await r.request('PUT', `/bookings/${o.bookingId}`, { status: 'approved' });
    expect(res.statusCode, res.body).toBe(200);
    o.booking = 'approved';
    if (o.status === 'cancelled') {
      o.status = 'open';
      for (const invoice of o.invoices) {
        if (invoice.closedFrom === undefined) continue;
        invoice.status = invoice.closedFrom;
        delete invoice.closedFrom;
      }
    }
    followTotal(o);
    followLedger(o);
    await agree(m, r, o);
  }
  toString = () => `restore(#${this.n})`;
}

class Reschedule implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly price: number,
    readonly n: number,
  ) {}
  check = (m: Readonly<Model>) => m.slot < SLOTS.length && m.orders.some((o) => o.booking === 'approved');
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(
      m.orders.filter((x) => x.booking === 'approved'),
      this.n,
    ) as OrderModel;
    const slot = SLOTS[m.slot++] as (typeof SLOTS)[number];
    const res = await r.request('PUT', `/bookings/${o.bookingId}`, { start_date: slot.day, start_time: slot.time, price: money(this.price) });
    expect(res.statusCode, res.body).toBe(200);
    o.price = this.price;
    const before = o.total;
    followTotal(o);
    if (o.total !== before) followLedger(o);
    await agree(m, r, o);
  }
  toString = () => `reschedule(${this.price}, #${this.n})`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => m.orders.some((o) => o.booking !== 'deleted');
  async run(m: Model, r: Real): Promise<void> {
    const o = pick(
      m.orders.filter((x) => x.booking !== 'deleted'),
      this.n,
    ) as OrderModel;
    const res = await r.request('DELETE', `/bookings/${o.bookingId}`);
    if (net(o) > 0) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('booking_has_payments');
    } else {
      expect(res.statusCode, res.body).toBe(200);
      if (o.booking === 'approved') cancelInModel(o);
      o.booking = 'deleted';
    }
    await agree(m, r, o);
  }
  toString = () => `delete(#${this.n})`;
}

const n = fc.nat(15);
const size = fc.constantFrom<Size>('part', 'whole', 'over');
const commands = [
  fc.tuple(fc.boolean(), fc.boolean()).map(([deposit, coupon]) => new Create(deposit, coupon)),
  fc.tuple(size, n).map(([s, i]) => new Pay('capture', s, i)),
  fc.tuple(size, n).map(([s, i]) => new Pay('refund', s, i)),
  n.map((i) => new FailCapture(i)),
  fc.tuple(fc.constantFrom<'paid' | 'void'>('paid', 'void'), n).map(([s, i]) => new SetInvoice(s, i)),
  fc.tuple(fc.constantFrom<Way>('put', 'link', 'order'), n).map(([w, i]) => new Cancel(w, i)),
  n.map((i) => new Restore(i)),
  fc.tuple(fc.constantFrom(3_000, 4_500, 6_000), n).map(([p, i]) => new Reschedule(p, i)),
  n.map((i) => new Delete(i)),
];

const PUBLIC_URL = 'https://book.example.test';

describe.each(DIALECTS)('the money trail against its model (%s)', (dialect) => {
  const t = useTestApp(dialect, { PUBLIC_URL });
  const api = requester(t);
  /** The API, or (for a path starting LINK) the manage page, which takes a form. */
  const request: Real['request'] = (method, url, payload, key) => {
    if (!url.startsWith('LINK')) return api(method, url, payload, key);
    const form = (payload as { form: string }).form;
    return t.app.inject({ method: 'POST', url: url.slice('LINK'.length), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
  };

  it('agrees with the model after every step of random sequences', { timeout: 300_000 }, async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 16, size: 'large' }), async (sequence) => {
        const site = await newSite(t.db, { charge_amount_cents: PRICE });
        const depositServiceId = await insertService(t.db, { duration: 60, charge_amount_cents: PRICE, deposit_amount_cents: DEPOSIT });
        await connectAgent(t.db, site.agentId, { serviceIds: [depositServiceId] });
        const coupon = `FLAT${dialect}${++runs}`;
        expect((await api('POST', '/coupons', { code: coupon, name: coupon, discount_type: 'fixed_amount', discount_value: COUPON / 100 })).statusCode).toBe(201);
        const real: Real = { request, serviceId: site.serviceId, depositServiceId, agentId: site.agentId, customerId: site.customerId, coupon };
        // Every sequence starts from two bookings: one plain, one with a deposit and a coupon.
        const model: Model = { orders: [], slot: 0 };
        await new Create(false, false).run(model, real);
        await new Create(true, true).run(model, real);
        await fc.asyncModelRun(() => ({ model, real }), sequence);
      }),
      { numRuns: dialect === 'sqlite' ? 25 : 12 },
    );
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, TEST_MANAGE_LINK_SECRET, useTestApp } from '../helper.js';
import { insertCustomer } from '../fixtures.js';
import { addAgent, MONDAY, newSite, type Site } from './setup.js';

const SCRIPT = path.join(import.meta.dirname, 'concurrent-writer.ts');
const PROCESSES = 4;
const PER_PROCESS = 6;

interface Outcome {
  status: number;
  code: string | undefined;
}

/** A racing process and the lines it prints, one at a time. */
class Racer {
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string) => void)[] = [];
  private stderr = '';

  constructor(databaseUrl: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      cwd: path.join(import.meta.dirname, '..', '..'),
      env: { ...process.env, DATABASE_URL: databaseUrl, MANAGE_LINK_SECRET: TEST_MANAGE_LINK_SECRET },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let buffer = '';
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        this.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
      }
    });
    this.child.on('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) waiter(`exited with ${code}: ${this.stderr}`);
    });
  }

  private push(line: string): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(line);
    else this.lines.push(line);
  }

  nextLine(): Promise<string> {
    const line = this.lines.shift();
    return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => this.waiting.push(resolve));
  }

  send(message: object): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.on('exit', () => resolve());
      this.child.stdin?.end();
    });
  }
}

describe.each(DIALECTS)('no double booking across processes (%s)', (dialect) => {
  const t = useTestApp(dialect, { SITE_TIMEZONE: 'Europe/Berlin' });
  let racers: Racer[] = [];

  // Separate OS processes, each with the whole service on the same database; started once.
  beforeAll(async () => {
    racers = Array.from({ length: PROCESSES }, () => new Racer(t.databaseUrl));
    for (const racer of racers) expect(await racer.nextLine()).toBe('ready');
  });
  afterAll(async () => {
    await Promise.all(racers.map((r) => r.stop()));
  });

  /** Every process sends its requests at once; the outcomes of all of them. */
  async function raceRequests(
    requestsOf: (processIndex: number) => { method: 'POST' | 'PUT' | 'DELETE'; url: string; payload?: object }[],
  ): Promise<Outcome[]> {
    const apiKey = await t.key();
    racers.forEach((racer, i) => racer.send({ apiKey, requests: requestsOf(i) }));
    const outcomes: Outcome[] = [];
    for (const racer of racers) outcomes.push(...(JSON.parse(await racer.nextLine()) as Outcome[]));
    return outcomes;
  }

  /** Every process sends its creates at once. */
  const race = (bodiesOf: (processIndex: number) => object[]) =>
    raceRequests((i) => bodiesOf(i).map((payload) => ({ method: 'POST' as const, url: '/bookings', payload })));

  /** Pairs of live bookings of one agent that overlap, other than group bookings sharing a start. */
  async function overlappingPairs(): Promise<unknown[]> {
    const { rows } = await sql`
      select a.id as first, b.id as second
      from bookings a join bookings b on a.agent_id = b.agent_id and a.id < b.id
      where a.status <> 'cancelled' and b.status <> 'cancelled'
        and a.start_at < b.end_at and b.start_at < a.end_at
        and not (a.service_id = b.service_id and a.start_at = b.start_at)`.execute(t.db);
    return rows;
  }

  async function liveBookings(agentIds: number[]): Promise<number> {
    const row = await t.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('agent_id', 'in', agentIds)
      .where('status', '!=', 'cancelled')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A booking made through the API, with its order. */
  async function book(site: Site, values: { agentId?: number; time: string }): Promise<{ id: number; orderId: number }> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/booking-api/v1/bookings',
      headers: { 'x-api-key': await t.key() },
      payload: {
        service_id: site.serviceId,
        agent_id: values.agentId ?? site.agentId,
        start_date: MONDAY,
        start_time: values.time,
        customer_id: site.customerId,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, order } = res.json().data;
    return { id, orderId: order.id };
  }

  // Races that PostgreSQL loses only now and then: a few rounds each.
  const ROUNDS = 6;

  it(`${PROCESSES * PER_PROCESS} creates of one agent and slot from ${PROCESSES} processes make exactly one booking`, async () => {
    const site = await newSite(t.db);
    const body = { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '10:00', customer_id: site.customerId };
    const outcomes = await race(() => Array.from({ length: PER_PROCESS }, () => body));
    expect(outcomes.filter((o) => o.status === 201)).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 409 && o.code === 'time_slot_unavailable')).toHaveLength(PROCESSES * PER_PROCESS - 1);
    expect(await liveBookings([site.agentId])).toBe(1);
    expect(await overlappingPairs()).toEqual([]);
  });

  it('overlapping starts (10:00, 10:15, 10:30, 10:45 for an hour) still make exactly one booking', async () => {
    const site = await newSite(t.db);
    const starts = ['10:00', '10:15', '10:30', '10:45'];
    const outcomes = await race((i) =>
      Array.from({ length: PER_PROCESS }, (_, j) => ({
        service_id: site.serviceId,
        agent_id: site.agentId,
        start_date: MONDAY,
        start_time: starts[(i + j) % starts.length],
        customer_id: site.customerId,
      })),
    );
    expect(outcomes.filter((o) => o.status === 201)).toHaveLength(1);
    expect(await liveBookings([site.agentId])).toBe(1);
    expect(await overlappingPairs()).toEqual([]);
  });

  it('a group service fills exactly capacity_max places', async () => {
    const site = await newSite(t.db, { capacity_max: 3 });
    const body = { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: '14:00', customer_id: site.customerId };
    const outcomes = await race(() => Array.from({ length: PER_PROCESS }, () => body));
    expect(outcomes.filter((o) => o.status === 201)).toHaveLength(3);
    expect(outcomes.filter((o) => o.status === 409)).toHaveLength(PROCESSES * PER_PROCESS - 3);
    expect(await liveBookings([site.agentId])).toBe(3);
    expect(await overlappingPairs()).toEqual([]);
  });

  it('agent any over two agents books each of them exactly once', async () => {
    const site = await newSite(t.db);
    const second = await addAgent(t.db, site);
    const body = { service_id: site.serviceId, agent_id: 'any', start_date: MONDAY, start_time: '11:00', customer_id: site.customerId };
    const outcomes = await race(() => Array.from({ length: PER_PROCESS }, () => body));
    expect(outcomes.filter((o) => o.status === 201)).toHaveLength(2);
    expect(await liveBookings([site.agentId, second])).toBe(2);
    const agents = await t.db.selectFrom('bookings').select('agent_id').where('agent_id', 'in', [site.agentId, second]).orderBy('agent_id').execute();
    expect(agents.map((a) => a.agent_id)).toEqual([site.agentId, second]);
    expect(await overlappingPairs()).toEqual([]);
  });

  it('updates racing the delete of their booking answer 200 or 404, never a 5xx, and leave nothing of it', async () => {
    const site = await newSite(t.db);
    const otherCustomer = await insertCustomer(t.db);
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await book(site, { time: `${String(9 + round).padStart(2, '0')}:00` });
      const outcomes = await raceRequests((i) => [
        i === 0 ? { method: 'DELETE', url: `/bookings/${id}` } : { method: 'PUT', url: `/bookings/${id}`, payload: { notes: `round ${round}` } },
        { method: 'PUT', url: `/bookings/${id}`, payload: { customer_id: i % 2 === 0 ? otherCustomer : site.customerId, start_time: '16:00' } },
      ]);
      expect(outcomes.every((o) => o.status === 200 || (o.status === 404 && o.code === 'booking_not_found')), JSON.stringify(outcomes)).toBe(true);
      expect(await t.db.selectFrom('bookings').select('id').where('id', '=', id).execute()).toEqual([]);
    }
    expect(await overlappingPairs()).toEqual([]);
  });

  it("booking updates racing updates of the booking's order all succeed: neither deadlocks the other", async () => {
    const site = await newSite(t.db);
    const otherCustomer = await insertCustomer(t.db);
    for (let round = 0; round < ROUNDS; round++) {
      const { id, orderId } = await book(site, { time: `${String(9 + round).padStart(2, '0')}:00` });
      const outcomes = await raceRequests((i) => [
        { method: 'PUT', url: `/orders/${orderId}`, payload: { payment_status: i % 2 === 0 ? 'fully_paid' : 'partially_paid' } },
        { method: 'PUT', url: `/bookings/${id}`, payload: { customer_id: i % 2 === 0 ? otherCustomer : site.customerId } },
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(Array<number>(PROCESSES * 2).fill(200));
    }
  });

  it('an agent or service removed while bookings of it are made or brought back keeps no live booking', async () => {
    for (const removed of ['agents', 'services'] as const) {
      for (let round = 0; round < ROUNDS; round++) {
        const site = await newSite(t.db);
        // A cancelled booking makes the removal a retirement: the row stays, marked deleted.
        const cancelled = await book(site, { time: '09:00' });
        await t.app.inject({
          method: 'PUT',
          url: `/booking-api/v1/bookings/${cancelled.id}`,
          headers: { 'x-api-key': await t.key() },
          payload: { status: 'cancelled' },
        });
        const id = removed === 'agents' ? site.agentId : site.serviceId;
        const outcomes = await raceRequests((i) =>
          i === 0
            ? [{ method: 'DELETE', url: `/${removed}/${id}` }, { method: 'PUT', url: `/bookings/${cancelled.id}`, payload: { status: 'approved' } }]
            : [10, 12].map((hour) => ({
                method: 'POST',
                url: '/bookings',
                payload: { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: `${hour + i % 2}:00`, customer_id: site.customerId },
              })),
        );
        expect(outcomes.filter((o) => o.status >= 500), JSON.stringify(outcomes)).toEqual([]);
        const column = removed === 'agents' ? 'agent_id' : 'service_id';
        const table = removed;
        const { rows } = await sql<{ id: number }>`
          select b.id from bookings b join ${sql.table(table)} r on r.id = b.${sql.ref(column)}
          where r.deleted_at is not null and b.status <> 'cancelled'`.execute(t.db);
        expect(rows, `${removed} round ${round}: ${JSON.stringify(outcomes)}`).toEqual([]);
      }
    }
    expect(await overlappingPairs()).toEqual([]);
  });

  it('reschedules of different bookings into one slot: exactly one moves', async () => {
    const site = await newSite(t.db);
    const ids: number[] = [];
    for (const time of ['09:00', '10:00', '11:00', '12:00']) ids.push((await book(site, { time })).id);
    const outcomes = await raceRequests(() => ids.map((id) => ({ method: 'PUT' as const, url: `/bookings/${id}`, payload: { start_time: '15:00' } })));
    // The winner's own later moves to where it already is change nothing and answer 200; every other booking is refused.
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(PROCESSES);
    expect(outcomes.filter((o) => o.status === 409 && o.code === 'time_slot_unavailable')).toHaveLength(PROCESSES * (ids.length - 1));
    const late = await t.db.selectFrom('bookings').select('id').where('agent_id', '=', site.agentId).where('start_at', '>=', '2030-01-07T14:00:00.000Z').execute();
    expect(late).toHaveLength(1);
    expect(await overlappingPairs()).toEqual([]);
  });

  it('agent changes of bookings onto one free agent at one time: exactly one moves', async () => {
    const site = await newSite(t.db);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await book(site, { agentId: await addAgent(t.db, site), time: '13:00' })).id);
    }
    const outcomes = await raceRequests(() => ids.map((id) => ({ method: 'PUT' as const, url: `/bookings/${id}`, payload: { agent_id: site.agentId } })));
    // As above: the moved booking answers 200 to every process, the others 409.
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(PROCESSES);
    expect(outcomes.filter((o) => o.status === 409 && o.code === 'time_slot_unavailable')).toHaveLength(PROCESSES * (ids.length - 1));
    expect(await liveBookings([site.agentId])).toBe(1);
    expect(await overlappingPairs()).toEqual([]);
  });
});

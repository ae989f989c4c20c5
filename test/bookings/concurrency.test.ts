import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp } from '../helper.js';
import { addAgent, MONDAY, newSite } from './setup.js';

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
      env: { ...process.env, DATABASE_URL: databaseUrl },
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
  async function raceRequests(requestsOf: (processIndex: number) => { method: 'POST' | 'PUT'; url: string; payload: object }[]): Promise<Outcome[]> {
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

  it('reschedules of different bookings into one slot: exactly one moves', async () => {
    const site = await newSite(t.db);
    const ids: number[] = [];
    for (const time of ['09:00', '10:00', '11:00', '12:00']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/booking-api/v1/bookings',
        headers: { 'x-api-key': await t.key() },
        payload: { service_id: site.serviceId, agent_id: site.agentId, start_date: MONDAY, start_time: time, customer_id: site.customerId },
      });
      ids.push(res.json().data.id);
    }
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
      const agentId = await addAgent(t.db, site);
      const res = await t.app.inject({
        method: 'POST',
        url: '/booking-api/v1/bookings',
        headers: { 'x-api-key': await t.key() },
        payload: { service_id: site.serviceId, agent_id: agentId, start_date: MONDAY, start_time: '13:00', customer_id: site.customerId },
      });
      ids.push(res.json().data.id);
    }
    const outcomes = await raceRequests(() => ids.map((id) => ({ method: 'PUT' as const, url: `/bookings/${id}`, payload: { agent_id: site.agentId } })));
    // As above: the moved booking answers 200 to every process, the others 409.
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(PROCESSES);
    expect(outcomes.filter((o) => o.status === 409 && o.code === 'time_slot_unavailable')).toHaveLength(PROCESSES * (ids.length - 1));
    expect(await liveBookings([site.agentId])).toBe(1);
    expect(await overlappingPairs()).toEqual([]);
  });
});

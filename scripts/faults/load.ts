import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DateTime } from 'luxon';
import { BENCH_TIMEZONE, DAY_START_HOUR } from '../../bench/generate.js';
import type { Instance } from './instances.js';

export type OutcomeKind = 'created' | 'conflict' | 'unavailable' | 'timeout' | 'connection' | 'other';

export interface Outcome {
  phase: string;
  instance: string;
  /** The booking's meta `fault_request`: finds what a request committed, answered or not. */
  marker: string;
  sentAt: number;
  doneAt: number;
  kind: OutcomeKind;
  status?: number;
  bookingId?: number;
  /** On a 503: whether it said when to come back. */
  retryAfter?: boolean;
}

export interface LoadOptions {
  clients: number;
  /** A request not answered within this is given up (and counted as a timeout). */
  requestTimeoutMs: number;
  /** Each client's pause between requests: keeps the load modest on a shared machine. */
  pauseMs: number;
  key: string;
  agentIds: number[];
  serviceIds: number[];
  locationId: number;
  customerIds: number[];
  /** Bookings fall on this many days from the day after tomorrow: fewer days, more conflicts. */
  days: number;
}

/** Half-hour starts from 08:00 that leave room for an hour before the working day ends at 20:00. */
const SLOTS = 22;

/**
 * Closed-loop clients creating bookings through plain fetch, each request to the next instance in
 * turn. Every request's outcome is kept under the phase it was sent in; `created` is emitted for
 * each acknowledged booking, so that a phase can wait for writes to come back.
 */
export class BookingLoad extends EventEmitter<{ created: [Outcome] }> {
  readonly outcomes: Outcome[] = [];
  phase = 'warm-up';
  private stopped = false;
  private clients: Promise<void>[] = [];
  private sent = 0;
  private readonly firstDay = DateTime.now().setZone(BENCH_TIMEZONE).plus({ days: 2 }).startOf('day');

  constructor(
    private readonly instances: readonly Instance[],
    private readonly options: LoadOptions,
  ) {
    super();
  }

  start(): void {
    this.clients = Array.from({ length: this.options.clients }, () => this.client());
  }

  /** Stops sending and resolves once every request in flight has its outcome. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.clients);
  }

  /** Resolves with the first acknowledged booking sent at or after `since` by one of `instances`, or undefined past the limit. */
  nextCreated(since: number, instances: readonly Instance[], limitMs: number): Promise<Outcome | undefined> {
    const names = new Set(instances.map((i) => i.name));
    const matches = (o: Outcome): boolean => o.sentAt >= since && names.has(o.instance);
    const already = this.outcomes.find((o) => o.kind === 'created' && matches(o));
    if (already) return Promise.resolve(already);
    return new Promise((resolve) => {
      const listener = (outcome: Outcome): void => {
        if (!matches(outcome)) return;
        clearTimeout(timer);
        this.off('created', listener);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        this.off('created', listener);
        resolve(undefined);
      }, limitMs);
      this.on('created', listener);
    });
  }

  private async client(): Promise<void> {
    while (!this.stopped) {
      const instance = this.instances[this.sent++ % this.instances.length]!;
      const outcome = await this.createBooking(instance);
      this.outcomes.push(outcome);
      if (outcome.kind === 'created') this.emit('created', outcome);
      await new Promise((resolve) => setTimeout(resolve, this.options.pauseMs));
    }
  }

  private async createBooking(instance: Instance): Promise<Outcome> {
    const { options } = this;
    const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)]!;
    const start = this.firstDay
      .plus({ days: Math.floor(Math.random() * options.days) })
      .set({ hour: DAY_START_HOUR })
      .plus({ minutes: Math.floor(Math.random() * SLOTS) * 30 });
    const marker = randomUUID();
    const base = { phase: this.phase, instance: instance.name, marker, sentAt: Date.now() };
    try {
      const response = await fetch(`${instance.url}/booking-api/v1/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': options.key },
        body: JSON.stringify({
          service_id: pick(options.serviceIds),
          agent_id: pick(options.agentIds),
          location_id: options.locationId,
          customer_id: pick(options.customerIds),
          start_date: start.toFormat('yyyy-MM-dd'),
          start_time: start.toFormat('HH:mm'),
          send_confirmation: false,
          meta: { fault_request: marker },
        }),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
      const body = (await response.json()) as { data?: { id?: unknown } };
      const doneAt = Date.now();
      const status = response.status;
      if (status >= 200 && status < 300 && typeof body.data?.id === 'number') return { ...base, doneAt, kind: 'created', status, bookingId: body.data.id };
      if (status === 503) return { ...base, doneAt, status, kind: 'unavailable', retryAfter: response.headers.has('retry-after') };
      return { ...base, doneAt, status, kind: status === 409 ? 'conflict' : 'other' };
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return { ...base, doneAt: Date.now(), kind: timedOut ? 'timeout' : 'connection' };
    }
  }
}

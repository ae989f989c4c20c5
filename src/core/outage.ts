/** What an outage writes to: a pino or Fastify logger fits. */
export interface OutageLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** Runs `work` after `delayMs`; returns what cancels it. Tests pass their own to run it when they choose. */
export type Schedule = (work: () => Promise<void>, delayMs: number) => () => void;

export const realSchedule: Schedule = (work, delayMs) => {
  const timer = setTimeout(() => void work(), delayMs);
  // A probe is nothing the process should stay alive for.
  timer.unref();
  return () => clearTimeout(timer);
};

/** Pauses that double from the first to a cap: attempt 0 waits `firstMs`. */
export interface Backoff {
  firstMs: number;
  capMs: number;
}

export function backoffDelay(backoff: Backoff, attempt: number): number {
  return Math.min(backoff.capMs, backoff.firstMs * 2 ** Math.min(attempt, 30));
}

export interface OutageOptions {
  /**
   * Resolves once the dependency serves again. While it is away the outage tries it, with
   * `backoff` between attempts, and ends itself at the first success; without a probe, the owner
   * calls `restored()`.
   */
  probe?: () => Promise<unknown>;
  backoff?: Backoff;
  schedule?: Schedule;
  now?: () => number;
}

const PROBE_BACKOFF: Backoff = { firstMs: 500, capMs: 5000 };

/**
 * One dependency's outages, logged once each: a warning with the cause when it goes away, an info
 * line when it is back with how long it was away and how much was refused meanwhile. Every
 * refusal in between is only counted: a 20-second outage under load is two lines, not thousands.
 */
export class Outage {
  private since: number | undefined;
  private refusals = 0;
  private probes = 0;
  private cancelProbe: (() => void) | undefined;
  private stopped = false;

  constructor(
    /** The dependency, as the log lines name it ("database", "audit log writes"). */
    private readonly name: string,
    private readonly log: OutageLogger,
    private readonly options: OutageOptions = {},
  ) {}

  get away(): boolean {
    return this.since !== undefined;
  }

  /** The dependency refused work: the first refusal of an outage is logged, the rest counted. */
  refused(error: unknown): void {
    this.refusals += 1;
    if (this.since !== undefined) return;
    this.since = this.now();
    this.log.warn({ err: error }, `${this.name} unavailable; further failures are counted until it is back`);
    this.probes = 0;
    this.scheduleProbe();
  }

  /** The dependency served again: ends the outage, if there was one, with its summary. */
  restored(fields: object = {}): void {
    if (this.since === undefined) return;
    const awayMs = this.now() - this.since;
    this.log.info({ ...fields, refused: this.refusals, awayMs }, `${this.name} available again`);
    this.since = undefined;
    this.refusals = 0;
    this.cancelProbe?.();
    this.cancelProbe = undefined;
  }

  /** No more probes (the service is closing). */
  stop(): void {
    this.stopped = true;
    this.cancelProbe?.();
    this.cancelProbe = undefined;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private scheduleProbe(): void {
    const { probe } = this.options;
    if (!probe || this.stopped) return;
    const delay = backoffDelay(this.options.backoff ?? PROBE_BACKOFF, this.probes);
    this.probes += 1;
    this.cancelProbe = (this.options.schedule ?? realSchedule)(async () => {
      this.cancelProbe = undefined;
      if (this.since === undefined || this.stopped) return;
      try {
        await probe();
      } catch {
        // Still away: the failure that began the outage has been logged already.
        this.scheduleProbe();
        return;
      }
      this.restored();
    }, delay);
  }
}

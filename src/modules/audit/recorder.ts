import { setTimeout as wait } from 'node:timers/promises';
import { backoffDelay, Outage, type Backoff, type OutageLogger } from '../../core/outage.js';
import type { Db } from '../../db/database.js';
import { touchKeys } from '../api-keys/index.js';
import { insertEntries, type NewAuditEntry } from './repository.js';

const FLUSH_INTERVAL_MS = 1000;
const FLUSH_AT_ENTRIES = 200;
// If the database stays away, the buffer stops growing here; older unwritten entries are dropped.
const MAX_BUFFERED = 50_000;
/** Between failed writes while the database is away: one attempt per flush would be one per request under load. */
const WRITE_BACKOFF: Backoff = { firstMs: 1000, capMs: 30_000 };
/** Pauses between the last attempts at closing: short, as a shutdown has a grace period (10 s) to keep. */
const CLOSING_RETRY_MS = [100, 400, 1500];

export interface AuditRecorderOptions {
  /** The clock the backoff follows. */
  now?: () => number;
  /** Waits between the attempts at closing. */
  wait?: (ms: number) => Promise<unknown>;
}

/**
 * Collects audit entries in memory and writes them in batches, off the request path: a request
 * costs an array push, not a database write. Key last-used times ride along in the same flush.
 * While the database is away, writes back off and the outage is logged once.
 */
export class AuditRecorder {
  private buffer: NewAuditEntry[] = [];
  private flushing: Promise<boolean> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly outage: Outage;
  private failures = 0;
  private retryAt = 0;
  private readonly now: () => number;
  private readonly wait: (ms: number) => Promise<unknown>;

  constructor(
    private readonly db: Db,
    private readonly log: OutageLogger,
    options: AuditRecorderOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.wait = options.wait ?? wait;
    this.outage = new Outage('audit log writes', log, { now: this.now });
    this.timer = setInterval(() => void this.flushWhenDue(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  record(entry: NewAuditEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > MAX_BUFFERED) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    if (this.buffer.length >= FLUSH_AT_ENTRIES) void this.flushWhenDue();
  }

  /** Writes everything recorded so far, now; concurrent callers share one write. */
  async flush(): Promise<void> {
    await this.write();
  }

  /**
   * What the timer and a full buffer ask for: as flush, unless the pause after a failed write
   * still runs, when the entries stay buffered. Under load a full buffer asks at every request.
   */
  async flushWhenDue(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.now() < this.retryAt) return;
    await this.write();
  }

  /** Stops the timer and writes what is buffered, retrying a few times within the shutdown's grace. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const pause of CLOSING_RETRY_MS) {
      if (await this.write()) return;
      await this.wait(pause);
    }
    if (!(await this.write())) this.log.warn({ lost: this.buffer.length }, 'audit log entries not written before closing');
  }

  /** True once everything recorded so far is written. */
  private async write(): Promise<boolean> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return true;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.writeBatch(batch).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeBatch(batch: NewAuditEntry[]): Promise<boolean> {
    const lastUsed = new Map<number, string>();
    for (const entry of batch) {
      if (entry.key_id != null) {
        const previous = lastUsed.get(entry.key_id);
        if (previous === undefined || previous < entry.at) lastUsed.set(entry.key_id, entry.at);
      }
    }
    try {
      // All of the batch or none of it: a retry of a batch half written would record requests twice.
      await this.db.transaction().execute(async (trx) => {
        await insertEntries(trx, batch);
        await touchKeys(trx, lastUsed);
      });
    } catch (error) {
      // Keep the entries for the next attempt (the database may be briefly away).
      this.buffer = batch.concat(this.buffer).slice(-MAX_BUFFERED);
      this.outage.refused(error);
      this.retryAt = this.now() + backoffDelay(WRITE_BACKOFF, this.failures);
      this.failures += 1;
      return false;
    }
    this.outage.restored({ written: batch.length });
    this.failures = 0;
    this.retryAt = 0;
    return true;
  }
}

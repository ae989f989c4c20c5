import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import { touchKeys } from '../api-keys/index.js';
import { insertEntries, type NewAuditEntry } from './repository.js';

const FLUSH_INTERVAL_MS = 1000;
const FLUSH_AT_ENTRIES = 200;
// If the database stays away, the buffer stops growing here; older unwritten entries are dropped.
const MAX_BUFFERED = 50_000;

/**
 * Collects audit entries in memory and writes them in batches, off the request path: a request
 * costs an array push, not a database write. Key last-used times ride along in the same flush.
 */
export class AuditRecorder {
  private buffer: NewAuditEntry[] = [];
  private flushing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  record(entry: NewAuditEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > MAX_BUFFERED) this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    if (this.buffer.length >= FLUSH_AT_ENTRIES) void this.flush();
  }

  /** Writes everything recorded so far; concurrent callers share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.write(batch).finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(batch: NewAuditEntry[]): Promise<void> {
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
      this.log.warn({ err: error, entries: batch.length }, 'audit log write failed; will retry');
    }
  }
}

import { Outage, type OutageLogger } from '../core/outage.js';

/** SQLite's answer when a write needs a page it cannot have: the disk is full, or max_page_count is reached. */
export function isDiskFull(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_FULL';
}

/** What wal_checkpoint answers: whether it could not finish, pages in the log, pages moved to the file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * The health of one SQLite database's storage, shared by its writing connection and its
 * checkpointer: whether the disk is full (for /readyz), and checkpoint failures, logged once
 * each with their cause. The log is given late: the database opens before the service's logger
 * exists; what happens before then only sets the state.
 */
export class SqliteStorage {
  private full = false;
  /** When the disk last became full, until the write-ahead log has given its space back. */
  private fullSince: number | undefined;
  private log: OutageLogger | undefined;
  private readonly checkpoints = new Outage('SQLite checkpoints', {
    warn: (fields, message) => this.log?.warn(fields, message),
    info: (fields, message) => this.log?.info(fields, message),
  });

  /** True from a write refused for want of space until a write succeeds again. */
  get diskFull(): boolean {
    return this.full;
  }

  /** Writes succeed again after the disk was full, and the write-ahead log has not been truncated since. */
  get truncationPending(): boolean {
    return !this.full && this.fullSince !== undefined;
  }

  logTo(log: OutageLogger): void {
    this.log = log;
  }

  writeRefused(): void {
    this.full = true;
    this.fullSince ??= Date.now();
  }

  writeResumed(): void {
    this.full = false;
  }

  /** The checkpoint after the disk had room again: the log's pages are in the file and the log is empty. */
  walTruncated(checkpoint: CheckpointResult): void {
    const fullMs = Date.now() - (this.fullSince ?? Date.now());
    this.fullSince = undefined;
    this.log?.info({ fullMs, checkpoint }, 'SQLite has room again; the write-ahead log is truncated');
  }

  checkpointFailed(cause: unknown): void {
    this.checkpoints.refused(cause);
  }

  checkpointSucceeded(): void {
    this.checkpoints.restored();
  }
}

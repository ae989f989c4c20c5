import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import type { Backoff } from './backoff.js';
import { claimDue, finish, releaseClaims } from './repository.js';
import type { JobColumns, JobTableName } from './table.js';

/** What became of one attempt at a job. */
export type JobOutcome =
  /** Final: the queue's own status (sent, succeeded, failed, …). */
  | { status: string; error?: string | null; extra?: Record<string, unknown> }
  /** Try again after the queue's backoff; failed when the backoff gives up. */
  | { retry: true; error: string; extra?: Record<string, unknown> };

/** A kind of job: the rows of one job table, and what doing one means. */
export interface JobQueue<Row extends JobColumns = JobColumns> {
  name: string;
  table: JobTableName;
  /** Rows claimed at a time. */
  batchSize: number;
  /** Rows of a batch performed at once. */
  concurrency: number;
  /** How long a claim lasts: longer than a whole batch of the slowest jobs, so a live runner never loses its rows. */
  claimMs: number;
  backoff: Backoff;
  /** The status a job ends in when the backoff gives up. */
  failedStatus: string;
  perform(row: Row, now: Date): Promise<JobOutcome>;
}

/** Work at the start of every round (turning events into deliveries, reminders falling due). */
export interface PeriodicTask {
  name: string;
  run(db: Db, now: Date): Promise<void>;
}

/** Per queue, how many jobs of the round ended in each status, and how many will be retried. */
export type RoundResult = Record<string, Record<string, number>>;

const MAX_ERROR_LENGTH = 1000;

export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_LENGTH) || 'unknown error';
}

/**
 * Runs the background jobs of every queue: claims due rows, performs them, records each outcome;
 * retries back off. A row claimed by a process that died is claimed again once its claim lapses,
 * so no job is lost (it may, rarely, be done twice). Any number of runners, in any number of
 * processes, may share a database.
 */
export class JobRunner {
  private readonly queues: JobQueue[] = [];
  private readonly tasks: PeriodicTask[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RoundResult> | undefined;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  addQueue<Row extends JobColumns>(queue: JobQueue<Row>): this {
    // The rows a queue is handed are those of its own table.
    this.queues.push(queue);
    return this;
  }

  addTask(task: PeriodicTask): this {
    this.tasks.push(task);
    return this;
  }

  /** Runs a round every intervalMs until stop(); a round still running when the next is due is not doubled. */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => {
      if (!this.running) void this.runOnce();
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the rounds and waits for the job being done; rows claimed but not begun are released at
   * once. A round asked for afterwards (runOnce) runs in full.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    this.stopping = false;
  }

  /**
   * One round at `now` (default: the current time): every task, then every job due, each once.
   * Concurrent calls share the round in progress. Never throws: a failed round is logged and the
   * next one tries again.
   */
  runOnce(now: Date = new Date()): Promise<RoundResult> {
    this.running ??= this.round(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(now: Date): Promise<RoundResult> {
    const result: RoundResult = {};
    for (const task of this.tasks) {
      if (this.stopping) return result;
      try {
        await task.run(this.db, now);
      } catch (error) {
        this.log.warn({ err: error, task: task.name }, 'background task failed; will try again');
      }
    }
    for (const queue of this.queues) {
      const tally: Record<string, number> = {};
      result[queue.name] = tally;
      try {
        await this.drain(queue, now, tally);
      } catch (error) {
        // The database may be briefly away; claimed rows are taken again when their claim lapses.
        this.log.warn({ err: error, queue: queue.name }, 'job round failed; will try again');
      }
    }
    return result;
  }

  private async drain(queue: JobQueue, now: Date, tally: Record<string, number>): Promise<void> {
    for (;;) {
      if (this.stopping) return;
      const claimUntil = new Date(now.getTime() + queue.claimMs).toISOString();
      const rows = (await claimDue(this.db, queue.table, now.toISOString(), claimUntil, queue.batchSize)) as unknown as JobColumns[];
      // Up to `concurrency` rows at once: a webhook endpoint's answer need not wait for another's.
      for (let start = 0; start < rows.length; start += queue.concurrency) {
        if (this.stopping) {
          await releaseClaims(this.db, queue.table, rows.slice(start).map((r) => r.id), claimUntil);
          return;
        }
        await Promise.all(
          rows.slice(start, start + queue.concurrency).map(async (row) => {
            const { status, finished } = await this.attempt(queue, row, now);
            const recorded = await finish(this.db, queue.table, row.id, claimUntil, finished, new Date().toISOString());
            if (!recorded) this.log.warn({ queue: queue.name, id: row.id }, 'job claim lapsed before its outcome was recorded');
            tally[status] = (tally[status] ?? 0) + 1;
          }),
        );
      }
      if (rows.length < queue.batchSize) return;
    }
  }

  private async attempt(queue: JobQueue, row: JobColumns, now: Date) {
    const attempts = row.attempts + 1;
    let outcome: JobOutcome;
    try {
      outcome = await queue.perform(row, now);
    } catch (error) {
      outcome = { retry: true, error: errorText(error) };
    }
    const extra = outcome.extra ?? {};
    if (!('retry' in outcome)) {
      return { status: outcome.status, finished: { status: outcome.status, attempts, lastError: outcome.error ?? null, nextAttemptAt: row.next_attempt_at, extra } };
    }
    this.log.warn({ queue: queue.name, id: row.id, attempts, err: outcome.error }, 'job attempt failed');
    const delay = queue.backoff(attempts);
    if (delay === undefined) {
      return { status: queue.failedStatus, finished: { status: queue.failedStatus, attempts, lastError: outcome.error, nextAttemptAt: row.next_attempt_at, extra } };
    }
    const nextAttemptAt = new Date(now.getTime() + delay).toISOString();
    return { status: 'retrying', finished: { status: 'pending', attempts, lastError: outcome.error, nextAttemptAt, extra } };
  }
}

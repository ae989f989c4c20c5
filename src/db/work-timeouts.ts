/**
 * The kinds of work that wait on the database, each with its own bound: a request has a client
 * waiting for its answer; background jobs (the mail sender, the audit writer) have nobody waiting
 * but hold what they have buffered; migrations and command-line commands are an operator's long work.
 */
export type WorkKind = 'requests' | 'background' | 'migrations';

/**
 * For each kind of work, the longest one statement, or one transaction as a whole, may take in
 * milliseconds, waiting for locks included: past it the work fails as "the database is
 * unavailable" and its transaction rolls back.
 */
export type WorkTimeouts = Readonly<Record<WorkKind, number>>;

export const DEFAULT_WORK_TIMEOUTS: WorkTimeouts = Object.freeze({ requests: 5_000, background: 10_000, migrations: 600_000 });

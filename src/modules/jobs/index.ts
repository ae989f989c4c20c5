export { exponentialBackoff, scheduledBackoff, type Backoff } from './backoff.js';
export { DEFAULT_POLL_MS, errorText, JobRunner, type JobOutcome, type JobQueue, type PeriodicTask, type RoundResult } from './runner.js';
export type { JobColumns, JobTableName } from './table.js';

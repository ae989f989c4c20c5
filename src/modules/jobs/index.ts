export { exponentialBackoff, scheduledBackoff, type Backoff } from './backoff.js';
export { errorText, JobRunner, type JobOutcome, type JobQueue, type PeriodicTask } from './runner.js';
export type { JobColumns, JobTableName } from './table.js';

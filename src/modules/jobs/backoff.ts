/** How long a job waits before its next attempt, after `attempts` failed ones. */
export type Backoff = (attempts: number) => number | undefined;

/**
 * Doubling from `baseMs` after the first failure, up to `maxMs`; `jitter` (0–1) takes up to that
 * share off at random, so the jobs of one outage do not all come back in the same second.
 * Undefined (give up) once `maxAttempts` have failed.
 */
export function exponentialBackoff(options: { baseMs: number; maxMs: number; maxAttempts: number; jitter?: number; random?: () => number }): Backoff {
  const { baseMs, maxMs, maxAttempts, jitter = 0, random = Math.random } = options;
  return (attempts) => {
    if (attempts >= maxAttempts) return undefined;
    const delay = Math.min(maxMs, baseMs * 2 ** (attempts - 1));
    return Math.round(delay * (1 - jitter * random()));
  };
}

/**
 * The n-th wait of a fixed schedule after the n-th failure, less up to `jitter` of it at random;
 * undefined (give up) once the schedule is spent.
 */
export function scheduledBackoff(scheduleMs: readonly number[], options: { jitter?: number; random?: () => number } = {}): Backoff {
  const { jitter = 0, random = Math.random } = options;
  return (attempts) => {
    const delay = scheduleMs[attempts - 1];
    return delay === undefined ? undefined : Math.round(delay * (1 - jitter * random()));
  };
}

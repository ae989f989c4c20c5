import { describe, expect, it } from 'vitest';
import { exponentialBackoff, scheduledBackoff } from '../../src/modules/jobs/index.js';
import { RETRY_SCHEDULE_MS } from '../../src/modules/webhooks/index.js';

describe('backoff', () => {
  it('doubles from the base up to the cap, and gives up after the last attempt', () => {
    const backoff = exponentialBackoff({ baseMs: 1000, maxMs: 5000, maxAttempts: 5 });
    expect([1, 2, 3, 4, 5].map(backoff)).toEqual([1000, 2000, 4000, 5000, undefined]);
  });

  it('takes at most the jitter share off, at random', () => {
    const lowest = exponentialBackoff({ baseMs: 1000, maxMs: 60_000, maxAttempts: 9, jitter: 0.2, random: () => 1 });
    const none = exponentialBackoff({ baseMs: 1000, maxMs: 60_000, maxAttempts: 9, jitter: 0.2, random: () => 0 });
    expect(lowest(3)).toBe(3200);
    expect(none(3)).toBe(4000);
  });

  it("follows a schedule to its end: webhooks' lasts about three days", () => {
    const backoff = scheduledBackoff([5, 50], { jitter: 0.1, random: () => 0.5 });
    expect([1, 2, 3].map(backoff)).toEqual([5, 48, undefined]);
    const total = RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0);
    expect(total / 3_600_000).toBeGreaterThan(70);
    expect(total / 3_600_000).toBeLessThan(76);
    // Roughly exponential: no wait shorter than the one before.
    expect(RETRY_SCHEDULE_MS.every((ms, i) => i === 0 || ms >= RETRY_SCHEDULE_MS[i - 1]!)).toBe(true);
  });
});

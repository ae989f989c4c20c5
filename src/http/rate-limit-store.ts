import { Redis } from 'ioredis';

export interface RateWindow {
  limit: number;
  durationMs: number;
}

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix time in ms when the window ends. */
  resetAt: number;
}

export interface RateDecision {
  allowed: boolean;
  windows: WindowState[];
}

/**
 * Fixed windows aligned to the clock (a minute window ends on the minute). A request is counted
 * in every window only when all of them still have room, so a refused request spends nothing and
 * a key limited to N gets exactly N successes, however many instances share the counters.
 */
export interface RateLimitStore {
  consume(id: string, windows: readonly RateWindow[], now: number): Promise<RateDecision>;
  close(): Promise<void>;
}

function windowStart(now: number, durationMs: number): number {
  return now - (now % durationMs);
}

function decide(windows: readonly RateWindow[], counts: readonly number[], allowed: boolean, now: number): RateDecision {
  return {
    allowed,
    windows: windows.map((w, i) => ({
      limit: w.limit,
      remaining: Math.max(0, w.limit - (counts[i] ?? 0)),
      resetAt: windowStart(now, w.durationMs) + w.durationMs,
    })),
  };
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { start: number; count: number }>();
  private sweptAt = 0;

  consume(id: string, windows: readonly RateWindow[], now: number): Promise<RateDecision> {
    this.sweep(now);
    const counters = windows.map((w) => {
      const key = `${id}:${w.durationMs}`;
      const start = windowStart(now, w.durationMs);
      let counter = this.counters.get(key);
      if (!counter || counter.start !== start) {
        counter = { start, count: 0 };
        this.counters.set(key, counter);
      }
      return counter;
    });
    const allowed = counters.every((c, i) => c.count < windows[i]!.limit);
    if (allowed) for (const c of counters) c.count += 1;
    return Promise.resolve(decide(windows, counters.map((c) => c.count), allowed, now));
  }

  /** Drops finished windows once a minute so that counters for passing IPs do not pile up. */
  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [key, counter] of this.counters) {
      const durationMs = Number(key.slice(key.lastIndexOf(':') + 1));
      if (counter.start + durationMs <= now) this.counters.delete(key);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

// KEYS: one counter per window; ARGV: the limits, then each counter's time to live in ms.
// Check every window first, then count in all of them: one atomic step on the Redis server.
const CONSUME_SCRIPT = `
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] >= tonumber(ARGV[i]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

type ConsumingRedis = Redis & {
  consumeRate(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]>;
};

/** After a failed Redis command, how long each instance counts alone before it asks Redis again. */
export const LOCAL_COUNTING_MS = 5_000;

/**
 * Counters in Redis, shared by every instance. While Redis fails, each instance counts in its own
 * memory, as a service without Redis does: an outage loosens the limits to one budget per
 * instance, never to none (the failed-authentication and sign-in limits guard passwords and keys).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly local = new MemoryRateLimitStore();
  /** Until when (Unix ms) requests are counted locally without asking Redis, after a failure. */
  private localUntil = 0;

  private constructor(
    private readonly redis: ConsumingRedis,
    private readonly onOutage: (error: unknown) => void,
  ) {}

  /**
   * Connects before the service takes requests, so that a wrong REDIS_URL stops start-up.
   * `onOutage` hears of each failure that starts a spell of local counting.
   */
  static async connect(url: string, onOutage: (error: unknown) => void): Promise<RedisRateLimitStore> {
    // During a later outage a command waits at most a second, then fails; the next requests
    // count locally for a while rather than each stalling behind a reconnect.
    const redis = new Redis(url, { lazyConnect: true, commandTimeout: 1000, maxRetriesPerRequest: 1 });
    redis.defineCommand('consumeRate', { lua: CONSUME_SCRIPT });
    redis.on('error', () => {});
    try {
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      throw new Error(`cannot reach Redis at REDIS_URL: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return new RedisRateLimitStore(redis as ConsumingRedis, onOutage);
  }

  async consume(id: string, windows: readonly RateWindow[], now: number): Promise<RateDecision> {
    if (Date.now() < this.localUntil) return this.local.consume(id, windows, now);
    const keys = windows.map((w) => `bk:rl:${id}:${w.durationMs}:${windowStart(now, w.durationMs)}`);
    const ttls = windows.map((w) => windowStart(now, w.durationMs) + w.durationMs - now + 1000);
    try {
      const [allowed, ...counts] = await this.redis.consumeRate(keys.length, ...keys, ...windows.map((w) => w.limit), ...ttls);
      return decide(windows, counts, allowed === 1, now);
    } catch (error) {
      this.localUntil = Date.now() + LOCAL_COUNTING_MS;
      this.onOutage(error);
      return this.local.consume(id, windows, now);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

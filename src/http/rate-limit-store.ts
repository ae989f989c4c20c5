import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { OutageLogger } from '../core/outage.js';

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

// KEYS[1]: the live instances, each scored by when its announcement lapses. ARGV: this instance,
// now, when this announcement lapses, and a time: returns how many instances are alive, and how
// many of them announced themselves so recently that theirs lapses at that time or later.
const HEARTBEAT_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
return { redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], ARGV[4], '+inf') }
`;

// KEYS[1]: a token that lives as long as Redis keeps its data. ARGV[1]: a new token, set only if
// there is none. A token other than the one an instance knows means Redis lost its counters.
const EPOCH_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`;

// Adds what an instance counted alone to a window's counter. When Redis lost its counters, the
// counter is also raised to the highest count any instance had seen (KEYS[2] keeps that highest
// count, so each instance's own count is added once). ARGV: 1 if the counters were lost, the count
// this instance last saw, what it counted alone, the counter's time to live in ms.
const RESTORE_SCRIPT = `
local add = tonumber(ARGV[3])
if ARGV[1] == '1' then
  local seen = tonumber(ARGV[2])
  local highest = tonumber(redis.call('GET', KEYS[2]) or '0')
  if seen > highest then
    add = add + seen - highest
    redis.call('SET', KEYS[2], seen, 'PX', ARGV[4])
  end
end
local count = redis.call('INCRBY', KEYS[1], add)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return count
`;

type RateLimitRedis = Redis & {
  consumeRate(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]>;
  heartbeat(instances: string, instance: string, now: number, lapsesAt: number, recentFrom: number | '+inf'): Promise<[number, number]>;
  adoptEpoch(epochKey: string, newEpoch: string): Promise<string>;
  restoreCount(counter: string, highestSeen: string, countersLost: 0 | 1, seen: number, alone: number, ttlMs: number): Promise<number>;
};

const INSTANCES_KEY = 'bk:rl:instances';
const EPOCH_KEY = 'bk:rl:epoch';

/** How often an instance announces itself while Redis answers, and probes Redis while it does not. */
export const UPKEEP_MS = 1_000;
/** An instance not heard of for this long is no longer counted among the live ones. */
const INSTANCE_LAPSE_MS = 5 * UPKEEP_MS;
/** How often finished windows are dropped from an instance's memory. */
const SWEEP_MS = 60_000;


/** What one instance knows of one window of one key. */
interface WindowTally {
  limit: number;
  endsAt: number;
  /** The count Redis last answered for the window (all instances together). */
  seen: number;
  /** What this instance added to the count in Redis. */
  own: number;
  /** What it granted alone during an outage and has not yet added to the count in Redis. */
  alone: number;
}

interface Outage {
  since: number;
  grantedAlone: number;
  /** The live instances this one knew of when Redis went away. */
  instances: number;
  countersLost: boolean;
  /**
   * When this instance handed its counts over to a Redis that answers again. From then on it
   * counts in Redis, still within its share, until every instance has handed over (or has had the
   * time to): until then the counters lack what the others granted alone.
   */
  handedOverAt?: number;
}

/**
 * Counters in Redis, shared by every instance. The first failed command opens a circuit: no
 * request waits on Redis again until a background probe reaches it. Meanwhile each instance
 * grants a key at most its share of every window, ⌈limit / live instances⌉ less what it had
 * counted in Redis, and never past the limit from the count it last saw; the instances learn how
 * many they are from a heartbeat in Redis. When Redis is back, each adds what it granted alone to
 * the counters and, if Redis lost them (a restart without persistence), raises each counter to the
 * highest count any instance had seen, so a window does not start again.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly tallies = new Map<string, WindowTally>();
  private readonly instance = randomUUID();
  private liveInstances = 1;
  private epoch = '';
  private outage: Outage | undefined;
  private maintaining = false;
  private closing = false;
  private upkeep: NodeJS.Timeout | undefined;
  private sweptAt = 0;

  private constructor(
    private readonly redis: RateLimitRedis,
    private readonly clock: () => number,
    private readonly log: OutageLogger,
  ) {
    // A dropped connection opens the circuit before any request finds it dropped.
    redis.on('end', () => {
      if (!this.closing) this.open(new Error('connection to Redis closed'));
    });
  }

  /** Connects before the service takes requests, so that a wrong REDIS_URL stops start-up. */
  static async connect(url: string, options: { clock: () => number; log: OutageLogger }): Promise<RedisRateLimitStore> {
    // No reconnection and no offline queue: a command on a lost connection fails at once, and
    // only the probe connects again. A command on a frozen server fails after a second.
    const redis = new Redis(url, {
      lazyConnect: true,
      commandTimeout: 1000,
      connectTimeout: 1000,
      retryStrategy: () => null,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    }) as RateLimitRedis;
    redis.defineCommand('consumeRate', { lua: CONSUME_SCRIPT });
    redis.defineCommand('heartbeat', { lua: HEARTBEAT_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('adoptEpoch', { lua: EPOCH_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('restoreCount', { lua: RESTORE_SCRIPT, numberOfKeys: 2 });
    redis.on('error', () => {});
    try {
      await redis.connect();
      const store = new RedisRateLimitStore(redis, options.clock, options.log);
      store.epoch = await redis.adoptEpoch(EPOCH_KEY, randomUUID());
      await store.announce();
      return store;
    } catch (error) {
      redis.disconnect();
      throw new Error(`cannot reach Redis at REDIS_URL: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** Heartbeats and probes every UPKEEP_MS; tests call maintain() themselves instead. */
  startUpkeep(): void {
    this.upkeep ??= setInterval(() => void this.maintain(), UPKEEP_MS).unref();
  }

  /** One round of upkeep: the heartbeat while Redis answers, the probe while it does not. */
  async maintain(): Promise<void> {
    if (this.maintaining || this.closing) return;
    this.maintaining = true;
    try {
      if (this.outage) await this.probe();
      else await this.announce().catch((error: unknown) => this.open(error));
    } finally {
      this.maintaining = false;
    }
  }

  async consume(id: string, windows: readonly RateWindow[], now: number): Promise<RateDecision> {
    this.sweep(now);
    const keys = windows.map((w) => `bk:rl:${id}:${w.durationMs}:${windowStart(now, w.durationMs)}`);
    const outage = this.outage;
    if (outage && outage.handedOverAt === undefined) return this.decideByShare(keys, windows, now, true);
    if (outage) {
      const byShare = this.decideByShare(keys, windows, now, false);
      if (!byShare.allowed) return byShare;
    }
    const ttls = windows.map((w) => windowStart(now, w.durationMs) + w.durationMs - now + 1000);
    let answer: number[];
    try {
      answer = await this.redis.consumeRate(keys.length, ...keys, ...windows.map((w) => w.limit), ...ttls);
    } catch (error) {
      this.open(error);
      return this.decideByShare(keys, windows, now, true);
    }
    const [allowed, ...counts] = answer;
    keys.forEach((key, i) => {
      const tally = this.tally(key, windows[i]!, now);
      tally.seen = counts[i] ?? 0;
      if (allowed === 1) tally.own += 1;
    });
    return decide(windows, counts, allowed === 1, now);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.upkeep);
    if (!this.outage) await this.redis.zrem(INSTANCES_KEY, this.instance).catch(() => {});
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * The decision by this instance's share of each window during an outage. With `grantAlone`, an
   * allowed request is granted and counted here; without, the caller counts it in Redis.
   */
  private decideByShare(keys: readonly string[], windows: readonly RateWindow[], now: number, grantAlone: boolean): RateDecision {
    const outage = this.outage!;
    const tallies = keys.map((key, i) => this.tally(key, windows[i]!, now));
    const room = tallies.map((t) => Math.min(t.limit - t.seen, Math.ceil(t.limit / outage.instances) - t.own) - t.alone);
    const allowed = room.every((r) => r > 0);
    const granted = allowed && grantAlone;
    if (granted) {
      for (const tally of tallies) tally.alone += 1;
      outage.grantedAlone += 1;
    }
    const counts = tallies.map((t, i) => t.limit - Math.max(0, room[i]! - (granted ? 1 : 0)));
    return decide(windows, counts, allowed, now);
  }

  private tally(key: string, window: RateWindow, now: number): WindowTally {
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { limit: window.limit, endsAt: windowStart(now, window.durationMs) + window.durationMs, seen: 0, own: 0, alone: 0 };
      this.tallies.set(key, tally);
    }
    tally.limit = window.limit;
    return tally;
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_MS) return;
    this.sweptAt = now;
    for (const [key, tally] of this.tallies) if (tally.endsAt <= now) this.tallies.delete(key);
  }

  /** Announces this instance; returns how many instances announced themselves since `since`. */
  private async announce(since?: number): Promise<number> {
    const now = this.clock();
    const recentFrom = since === undefined ? '+inf' : since + INSTANCE_LAPSE_MS;
    const [live, recent] = await this.redis.heartbeat(INSTANCES_KEY, this.instance, now, now + INSTANCE_LAPSE_MS, recentFrom);
    this.liveInstances = Math.max(1, live);
    return recent;
  }

  private open(error: unknown): void {
    if (this.redis.status !== 'end') this.redis.disconnect();
    if (this.outage) {
      // Lost again while handing over or rejoining: back to counting alone, still one outage.
      this.outage.handedOverAt = undefined;
      return;
    }
    this.outage = { since: this.clock(), grantedAlone: 0, instances: this.liveInstances, countersLost: false };
    this.log.warn(
      { err: error, liveInstances: this.liveInstances },
      `Redis unavailable: each instance grants every key its share of the limit (1/${this.liveInstances}) until Redis answers a probe`,
    );
  }

  /**
   * Reconnects and hands over what was counted alone; once every instance it knew of has done so
   * too (or has had the time to), closes the circuit. On any failure, counts alone again.
   */
  private async probe(): Promise<void> {
    const outage = this.outage!;
    let handedOver: number;
    try {
      if (outage.handedOverAt === undefined) {
        await this.redis.connect();
        const epoch = await this.redis.adoptEpoch(EPOCH_KEY, randomUUID());
        const countersLost = epoch !== this.epoch;
        await this.handOver(countersLost);
        this.epoch = epoch;
        outage.countersLost ||= countersLost;
        outage.handedOverAt = this.clock();
      }
      // An instance announces itself only while it counts in Redis, so after having handed over.
      handedOver = await this.announce(outage.handedOverAt);
    } catch (error) {
      this.open(error);
      return;
    }
    if (handedOver < outage.instances && this.clock() < outage.handedOverAt + INSTANCE_LAPSE_MS) return;
    this.outage = undefined;
    this.log.info(
      { outageMs: this.clock() - outage.since, grantedAlone: outage.grantedAlone, countersLost: outage.countersLost },
      `Redis available again after ${Math.round((this.clock() - outage.since) / 1000)} s: rate limits count in Redis again (${outage.grantedAlone} requests granted by this instance alone meanwhile)`,
    );
  }

  /**
   * Adds every window's count granted alone to Redis (and, if Redis lost its counters, the count
   * last seen). Requests granted while this runs are handed over in a further round, so nothing
   * granted alone is missing when the circuit closes.
   */
  private async handOver(countersLost: boolean): Promise<void> {
    const now = this.clock();
    const restore = async (key: string, tally: WindowTally, lost: boolean): Promise<void> => {
      const alone = tally.alone;
      tally.alone = 0;
      try {
        // The count last seen stays as it was: handed over again after a failed probe, it adds nothing.
        await this.redis.restoreCount(key, `${key}:seen`, lost ? 1 : 0, tally.seen, alone, tally.endsAt - now + 1000);
        tally.own += alone;
      } catch (error) {
        tally.alone += alone;
        throw error;
      }
    };
    let round = [...this.tallies].filter(([, t]) => t.endsAt > now && (countersLost || t.alone > 0));
    let lost = countersLost;
    while (round.length > 0) {
      await Promise.all(round.map(([key, tally]) => restore(key, tally, lost)));
      lost = false;
      round = [...this.tallies].filter(([, t]) => t.endsAt > now && t.alone > 0);
    }
  }
}

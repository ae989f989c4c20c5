import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/core/app.js';
import type { OutageLogger } from '../../src/core/outage.js';
import { RedisRateLimitStore } from '../../src/http/rate-limit-store.js';
import { createKey } from '../../src/modules/api-keys/service.js';
import { buildApp } from '../../src/app.js';
import { buildTestApp, createTestDatabase, testConfig, type TestDatabase } from '../helper.js';

const STATUS = '/booking-api/v1/status';
// Half a minute into an hour: the minute window stays open through the whole test.
const PINNED_NOW = Date.UTC(2026, 10, 21, 10, 0, 30);
const LIMIT = 10;
const INSTANCES = 2;
/** README, Scale-out: with requests spread over the instances, a window grants at most limit + instances − 1. */
const MARGIN = INSTANCES - 1;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A Redis of the test's own, without persistence: killed, it comes back empty. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    redis.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    redis.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return redis;
}

async function kill(redis: ChildProcess): Promise<void> {
  const exited = once(redis, 'exit');
  redis.kill('SIGKILL');
  await exited;
}

/**
 * A relay in front of Redis that the test can freeze, as a Redis that stops answering (a stuck
 * host, a network black hole) looks, and that counts what instances send while it is frozen.
 */
async function freezableRelay(redisPort: number) {
  const sockets = new Set<net.Socket>();
  const state = { frozen: false, bytesWhileFrozen: 0, connectionsWhileFrozen: 0 };
  const relay = net.createServer((client) => {
    client.on('error', () => {});
    if (state.frozen) {
      state.connectionsWhileFrozen += 1;
      sockets.add(client);
      client.on('data', (chunk: Buffer) => (state.bytesWhileFrozen += chunk.length));
      return;
    }
    const upstream = net.connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (chunk: Buffer) => (state.frozen ? (state.bytesWhileFrozen += chunk.length) : upstream.write(chunk)));
    upstream.on('data', (chunk: Buffer) => state.frozen || client.write(chunk));
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(relay.address() as net.AddressInfo).port}`,
    state,
    freeze: () => void (state.frozen = true),
    /** Drops every connection (they led to the Redis that was frozen) and relays again. */
    thaw: () => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      state.frozen = false;
    },
    close: () => new Promise((resolve) => (relay.close(resolve), [...sockets].forEach((s) => s.destroy()))),
  };
}

function capturingLog() {
  const lines = { warn: [] as [object, string][], info: [] as [object, string][] };
  const log: OutageLogger = { warn: (fields, message) => lines.warn.push([fields, message]), info: (fields, message) => lines.info.push([fields, message]) };
  return { log, lines };
}

describe('rate limits while Redis freezes, dies and comes back empty (two instances)', () => {
  let clock = PINNED_NOW;
  const now = (): number => clock;
  let redisPort: number;
  let redis: ChildProcess;
  let relay: Awaited<ReturnType<typeof freezableRelay>>;
  let database: TestDatabase;
  const logs = [capturingLog(), capturingLog()];
  const stores: RedisRateLimitStore[] = [];
  const apps: App[] = [];

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    relay = await freezableRelay(redisPort);
    database = await createTestDatabase('sqlite');
    for (const { log } of logs) {
      const store = await RedisRateLimitStore.connect(relay.url, { clock: now, log });
      stores.push(store);
      apps.push(await buildTestApp(database.url, {}, { now, rateLimits: store }));
    }
    // A heartbeat round after both have started: each knows there are two.
    for (const store of stores) await store.maintain();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
    await relay?.close();
    if (redis) await kill(redis);
  });

  it('fails fast, grants at most limit + margin across both, restores the window after the restart, and logs each change once', async () => {
    // `spent` is used up during the outage; `partial` keeps budget for after it.
    const keys = {
      spent: (await createKey(apps[0]!.db, { name: 'spent', perMinute: LIMIT, perHour: 1000 })).key,
      partial: (await createKey(apps[0]!.db, { name: 'partial', perMinute: LIMIT, perHour: 1000 })).key,
    };
    const granted = { spent: 0, partial: 0 };
    const request = async (key: keyof typeof keys, instance: number) => {
      const status = (await apps[instance]!.inject({ url: STATUS, headers: { 'x-api-key': keys[key] } })).statusCode;
      if (status === 200) granted[key] += 1;
      return status;
    };
    /** `count` requests in turn on the instances given (both by default), one at a time. */
    const burst = async (key: keyof typeof keys, count: number, instances = [0, 1]) => {
      const statuses = [];
      for (let i = 0; i < count; i++) statuses.push(await request(key, instances[i % instances.length]!));
      return statuses;
    };

    expect([...(await burst('spent', 4)), ...(await burst('partial', 4))]).toEqual(Array<number>(8).fill(200));

    relay.freeze();
    clock += 5_000;
    // The first request on each instance waits for its command to time out, then counts alone...
    expect(await Promise.all([request('spent', 0), request('spent', 1)])).toEqual([200, 200]);
    const sentAtFailure = { ...relay.state };
    // ...and no later request sends Redis anything or connects to it: none waits on it.
    const spentDuring = await burst('spent', 20);
    await burst('partial', 2);
    expect(relay.state.bytesWhileFrozen).toBe(sentAtFailure.bytesWhileFrozen);
    expect(relay.state.connectionsWhileFrozen).toBe(sentAtFailure.connectionsWhileFrozen);
    expect(granted.spent).toBeLessThanOrEqual(LIMIT + MARGIN);
    expect(spentDuring.slice(-2)).toEqual([429, 429]);
    // Failed authentications (30 a minute per IP) stay limited too: this instance's share is 15.
    const failures = [];
    for (let i = 0; i < 16; i++) {
      failures.push((await apps[0]!.inject({ url: STATUS, remoteAddress: '203.0.113.9', headers: { 'x-api-key': 'bk_test_wrongwrongwrongwrongwrongwrong' } })).statusCode);
    }
    expect(failures).toEqual([...Array<number>(15).fill(401), 429]);

    // Redis dies and comes back without its data, in the same window. The first instance back
    // serves requests before the second has handed over what it granted alone.
    await kill(redis);
    redis = await startRedis(redisPort);
    relay.thaw();
    clock += 10_000;
    await stores[0]!.maintain();
    await burst('partial', 10, [0]);
    await stores[1]!.maintain();
    await stores[0]!.maintain();
    expect((await burst('spent', 10)).every((status) => status === 429)).toBe(true);
    await burst('partial', 10);
    expect(granted.spent).toBeLessThanOrEqual(LIMIT + MARGIN);
    expect(granted.partial).toBeLessThanOrEqual(LIMIT + MARGIN);
    // Back on Redis, the window's budget is spent up to the limit, not short of it.
    expect(granted.partial).toBeGreaterThanOrEqual(LIMIT);

    for (const { lines } of logs) {
      expect(lines.warn).toHaveLength(1);
      expect(lines.info).toHaveLength(1);
      expect(lines.info[0]![0]).toMatchObject({ outageMs: 10_000, countersLost: true, grantedAlone: expect.any(Number) });
    }
  });

  it("reports to the app's log on its own: the outage when Redis dies, the recovery from its background probe", async () => {
    const lines: { level: number; msg: string }[] = [];
    const waiters: { match: (line: { level: number; msg: string }) => boolean; resolve: () => void }[] = [];
    const logLine = (match: (line: { level: number; msg: string }) => boolean) =>
      new Promise<void>((resolve) => (lines.some(match) ? resolve() : waiters.push({ match, resolve })));
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
        lines.push(line);
        for (const waiter of waiters) if (waiter.match(line)) waiter.resolve();
        done();
      },
    });
    const app = await buildApp(testConfig(database.url, { REDIS_URL: `redis://127.0.0.1:${redisPort}` }), { logger: { level: 'info', stream }, jobPollMs: false });
    try {
      await app.ready();
      const isOutage = (line: { level: number; msg: string }) => line.level === 40 && line.msg.startsWith('Redis unavailable');
      const isRecovery = (line: { level: number; msg: string }) => line.level === 30 && line.msg.startsWith('Redis available again');
      await kill(redis);
      await logLine(isOutage);
      redis = await startRedis(redisPort);
      // The probe runs each second on its own; the test's time limit bounds the wait.
      await logLine(isRecovery);
      expect(lines.filter(isOutage)).toHaveLength(1);
      expect(lines.filter(isRecovery)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

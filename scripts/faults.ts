/**
 * npm run faults [-- --quick] [--report docs/faults.md] [--instances 2] [--clients 8] [--no-redis] [--skip-build]
 *
 * Fault injection, run by hand (not part of npm test). Starts its own PostgreSQL cluster (and
 * Redis) in a temporary folder, builds and starts API instances against it, keeps booking creates
 * running, and meanwhile freezes PostgreSQL (SIGSTOP), restarts it, stops it, SIGKILLs an instance
 * and SIGTERMs one. Then it checks the database: every acknowledged booking stored, no agent
 * double-booked. Prints a one-line verdict (exit 0 when the data holds) and, with --report,
 * writes the markdown report (docs/faults.md).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_TIMEZONE, generateCatalog } from '../bench/generate.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createKey } from '../src/modules/api-keys/index.js';
import { initialiseSettings } from '../src/modules/settings/index.js';
import { checkData } from './faults/check.js';
import { Instance } from './faults/instances.js';
import { BookingLoad } from './faults/load.js';
import { pause, runPhase, seconds, type Phase, type PhaseResult } from './faults/phases.js';
import { PostgresCluster } from './faults/postgres.js';
import { RedisServer } from './faults/redis.js';
import { renderReport, type RunSettings } from './faults/report.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    report: { type: 'string' },
    instances: { type: 'string', default: '2' },
    clients: { type: 'string', default: '8' },
    'no-redis': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
  },
});

const settings: RunSettings = {
  quick: args.quick,
  instances: positive('--instances', args.instances),
  clients: positive('--clients', args.clients),
  redis: !args['no-redis'],
  requestTimeoutMs: 10_000,
  pauseMs: 50,
  freezeMs: args.quick ? 8_000 : 20_000,
  stopMs: args.quick ? 3_000 : 8_000,
  killDownMs: 2_000,
  timing: { leadMs: 3_000, settleMs: args.quick ? 4_000 : 10_000, recoveryLimitMs: 60_000 },
};

function positive(option: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`${option} must be a whole number from 1`);
  return number;
}

/** Everything started, stopped in reverse order whatever happens (an error, Ctrl-C). */
const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => process.stderr.write(`cleanup: ${String(error)}\n`));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: cleaning up\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0]!;
  if (!args['skip-build']) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-faults-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  process.stderr.write(`temporary folder ${dir}\n`);
  const cluster = await PostgresCluster.create(dir);
  cleanups.push(() => cluster.remove());
  const redis = settings.redis ? await RedisServer.start(dir) : undefined;
  if (redis) cleanups.push(() => redis.stop());

  const seed = openDatabase(cluster.url);
  await migrateToLatest(seed);
  await initialiseSettings(seed.db, BENCH_TIMEZONE);
  const catalog = await generateCatalog(seed.db, { agents: 4, services: 2, teams: 1, customers: 20 }, () => {});
  const { key } = await createKey(seed.db, { name: 'faults', type: 'live', perMinute: 1_000_000, perHour: 1_000_000 });
  await seed.destroy();

  const env: Record<string, string> = {
    DATABASE_URL: cluster.url,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    MANAGE_LINK_SECRET: randomBytes(32).toString('hex'),
    ...(redis ? { REDIS_URL: redis.url } : {}),
  };
  const instances: Instance[] = [];
  cleanups.push(async () => {
    for (const instance of instances) await instance.signal('SIGKILL', 5_000);
  });
  for (let i = 1; i <= settings.instances; i++) instances.push(await Instance.start(`instance-${i}`, env));
  const startupsMs = instances.map((i) => i.startupsMs[0]!);
  process.stderr.write(`started in ${startupsMs.map(seconds).join(', ')}; PostgreSQL on port ${cluster.port}${redis ? `, ${redis.url}` : ''}, ${instances.map((i) => i.url).join(', ')}\n`);

  const load = new BookingLoad(instances, {
    clients: settings.clients,
    requestTimeoutMs: settings.requestTimeoutMs,
    pauseMs: settings.pauseMs,
    key,
    agentIds: catalog.agentIds,
    serviceIds: catalog.serviceIds,
    locationId: catalog.locationIds[0]!,
    customerIds: catalog.customerIds,
    days: 120,
  });
  load.start();
  const victim = instances[0]!;
  const terminated = instances.at(-1)!;
  const phases: Phase[] = [
    { name: 'baseline', description: 'no fault: the load alone', affected: instances, inject: async () => [] },
    {
      name: 'freeze',
      description: `every PostgreSQL process stopped with SIGSTOP for ${seconds(settings.freezeMs)}, then SIGCONT`,
      affected: instances,
      inject: async () => {
        const pids = cluster.freeze();
        await pause(settings.freezeMs);
        cluster.thaw(pids);
        return [`${pids.length} PostgreSQL processes frozen`];
      },
    },
    {
      name: 'restart',
      description: 'PostgreSQL restarted (`pg_ctl restart -m fast`)',
      affected: instances,
      inject: async () => {
        const begun = Date.now();
        await cluster.restart();
        return [`pg_ctl restart took ${seconds(Date.now() - begun)}`];
      },
    },
    {
      name: 'stop',
      description: `PostgreSQL stopped (\`pg_ctl stop -m fast\`) for ${seconds(settings.stopMs)}, then started`,
      affected: instances,
      inject: async () => {
        await cluster.stop();
        await pause(settings.stopMs);
        await cluster.start();
        return [];
      },
    },
    {
      name: 'sigkill',
      description: `${victim.name} killed with SIGKILL under load, restarted ${seconds(settings.killDownMs)} later`,
      affected: [victim],
      inject: async () => {
        const exit = await victim.signal('SIGKILL');
        await pause(settings.killDownMs);
        await victim.start();
        return [`${victim.name} ended by ${exit?.signal ?? 'nothing'}; answered /healthz ${seconds(victim.startupsMs.at(-1)!)} after its restart`];
      },
    },
    {
      name: 'sigterm',
      description: `${terminated.name} sent SIGTERM under load (graceful shutdown), then restarted`,
      affected: [terminated],
      inject: async () => {
        const begun = Date.now();
        const exit = await terminated.signal('SIGTERM');
        const how = exit === undefined ? 'had not exited after 60 s' : `exited with code ${exit.code ?? `signal ${exit.signal}`} after ${seconds(exit.at - begun)}`;
        if (exit === undefined) await terminated.signal('SIGKILL');
        await terminated.start();
        return [`${terminated.name} ${how}; answered /healthz ${seconds(terminated.startupsMs.at(-1)!)} after its restart`];
      },
    },
  ];
  const results: PhaseResult[] = [];
  for (const phase of phases) results.push(await runPhase(phase, load, instances, settings.timing));
  await load.stop();

  const shutdown: string[] = [];
  for (const instance of instances) {
    const begun = Date.now();
    const exit = await instance.signal('SIGTERM');
    shutdown.push(`${instance.name}: ${exit === undefined ? 'no exit within 60 s' : `exit ${exit.code ?? exit.signal} after ${seconds(exit.at - begun)}`}`);
  }
  const check = openDatabase(cluster.url);
  const data = await checkData(check.db, load.outcomes).finally(() => check.destroy());

  const held = data.acknowledgedMissing === 0 && data.overlappingPairs === 0;
  const unacknowledged = Object.values(data.committedUnacknowledged).reduce((a, b) => a + b, 0);
  const freeze = results.find((r) => r.name === 'freeze');
  const sigterm = results.find((r) => r.name === 'sigterm');
  const verdict =
    `faults: ${held ? 'DATA HELD' : 'DATA BROKEN'}: ${data.acknowledgedMissing} of ${data.acknowledged} acknowledged bookings missing, ` +
    `${data.overlappingPairs} overlapping pairs, ${unacknowledged} committed without acknowledgement; ` +
    `freeze: longest answer ${seconds(freeze?.longestAnswerMs ?? 0)}, ${freeze?.byKind.timeout ?? 0} client timeouts; ` +
    `${sigterm?.notes.join('; ') ?? ''}; ${results.filter((r) => r.recoveryMs === undefined).length} phases without recovered writes`;

  if (args.report) {
    const report = renderReport({ settings, startedAt, loadAverages: [loadAtStart, os.loadavg()[0]!], durationMs: Date.now() - startedAt.getTime(), commit: commitOf(), results, data, startupsMs, shutdown, verdict });
    fs.writeFileSync(args.report, report);
    process.stderr.write(`report written to ${args.report}\n`);
  }
  process.stdout.write(`${verdict}\n`);
  return held ? 0 : 1;
}

function commitOf(): string {
  const git = (...gitArgs: string[]): string => execFileSync('git', gitArgs, { encoding: 'utf8' }).trim();
  const changed = git('status', '--porcelain', '--untracked-files=no').length > 0;
  return `${git('rev-parse', '--short=12', 'HEAD')}${changed ? ' with uncommitted changes' : ''} (${git('rev-parse', '--abbrev-ref', 'HEAD')})`;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`faults: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 2;
} finally {
  await cleanUp();
}

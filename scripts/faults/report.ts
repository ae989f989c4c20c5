import os from 'node:os';
import type { DataCheck } from './check.js';
import { READINESS_LIMIT_MS, seconds, type PhaseResult, type PhaseTiming } from './phases.js';

export interface RunSettings {
  quick: boolean;
  instances: number;
  clients: number;
  redis: boolean;
  requestTimeoutMs: number;
  pauseMs: number;
  freezeMs: number;
  stopMs: number;
  killDownMs: number;
  timing: PhaseTiming;
}

export interface RunRecord {
  settings: RunSettings;
  startedAt: Date;
  /** The machine's 1-minute load average when the run started and when it ended: other work on it slows starts and answers. */
  loadAverages: [number, number];
  durationMs: number;
  commit: string;
  results: PhaseResult[];
  data: DataCheck;
  /** Each instance's first start, until /healthz answered. */
  startupsMs: number[];
  shutdown: string[];
  verdict: string;
}

/** docs/faults.md: how to run the script, then what this run did and saw. Written whole by `--report`. */
export function renderReport(run: RunRecord): string {
  const { settings, data } = run;
  const lines = [
    '# Fault injection',
    '',
    '<!-- Written by `npm run faults -- --report docs/faults.md`; a run rewrites the whole file. -->',
    '',
    '`scripts/faults.ts` starts its own PostgreSQL cluster (and Redis) in a temporary folder, builds the',
    'service and starts API instances (`dist/server.js`, `NODE_ENV=production`, `LOG_LEVEL=warn`) against it,',
    'keeps concurrent clients creating bookings, and meanwhile injects one fault per phase. Afterwards it',
    'reads the database directly: every booking a client was answered 2xx for must be stored under the id',
    'it was given, and no two live bookings of one agent may overlap. It is run by hand, not by `npm test`.',
    '',
    '## How to run',
    '',
    '```sh',
    'npm run faults                               # full run, about 3 minutes; prints a one-line verdict',
    'npm run faults -- --quick                    # shorter faults and settling times, about 1.5 minutes',
    'npm run faults -- --report docs/faults.md    # also rewrites this report',
    '```',
    '',
    'Options: `--instances N` (2), `--clients N` (8 concurrent clients), `--no-redis` (rate limits in',
    'memory), `--skip-build` (use the `dist/` already built). Exit status 0 when the data held, 1 when an',
    'acknowledged booking is missing or two bookings overlap, 2 when the run itself failed.',
    '',
    'It needs PostgreSQL 15 binaries at `/usr/lib/postgresql/15/bin` (`initdb`, `pg_ctl`), `pgrep`, and',
    '`/usr/bin/redis-server` unless `--no-redis`; run as root, it runs PostgreSQL as the `postgres` user',
    '(`runuser`), since PostgreSQL refuses root. The cluster listens on a free port of 127.0.0.1 with trust',
    'auth and its socket in the temporary folder: a cluster already running on the machine (5432) is not',
    'touched. Everything it starts is stopped and the folder removed at the end, on an error and on',
    'Ctrl-C as well.',
    '',
    '## Phases',
    '',
    'Load runs throughout. Each phase: 3 s of load as it is, the fault, then the wait (up to 60 s) for a',
    'booking acknowledged by an affected instance and sent after the fault ended ("writes back after",',
    'counted from the fault\'s end), then a settling time. A request counts under the phase it was sent in.',
    '"Failing for" spans the phase\'s failed requests (503, timeout, connection, other), from the first one\'s',
    'sending to the last one\'s end.',
    'Outcomes: **201** booking created; **409** `time_slot_unavailable` (the slot was taken: expected, the',
    'clients pick slots at random); **503** `service_not_available`; **timeout** no answer within the',
    `client's ${seconds(settings.requestTimeoutMs)}; **connection** refused or reset; **other** any other answer.`,
    '',
    `## This run`,
    '',
    `- Commit ${run.commit}, started ${run.startedAt.toISOString().replace(/\.\d+Z$/, 'Z')}, took ${seconds(run.durationMs)}${settings.quick ? ' (`--quick`)' : ''}.`,
    `- ${os.cpus().length} cores (1-minute load average ${run.loadAverages.map((l) => l.toFixed(1)).join(' at the start, ')} at the end), Node.js ${process.version}, PostgreSQL 15; ${settings.instances} instances, ${settings.redis ? 'own Redis (no persistence)' : 'no Redis'}; ` +
      `${settings.clients} clients, each pausing ${settings.pauseMs} ms between requests; 4 agents, 2 services (30 and 60 min), 120 days of half-hour starts.`,
    `- The instances started in ${run.startupsMs.map(seconds).join(', ')} (until \`/healthz\` answered).`,
    '',
    '| phase | fault | requests | 201 | 409 | 503 | timeout | connection | other | longest answer | failing for | writes back after |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...run.results.map((r) => {
      const other = r.byKind.other === 0 ? '0' : `${r.byKind.other} (${Object.entries(r.otherStatuses).map(([status, n]) => `${n}× ${status}`).join(', ')})`;
      const recovery = r.recoveryMs === undefined ? '**not within 60 s**' : seconds(r.recoveryMs);
      return `| ${r.name} | ${r.description} | ${r.requests} | ${r.byKind.created} | ${r.byKind.conflict} | ${r.byKind.unavailable} | ${r.byKind.timeout} | ${r.byKind.connection} | ${other} | ${seconds(r.longestAnswerMs)} | ${seconds(r.failingMs)} | ${recovery} |`;
    }),
    '',
    `\`/readyz\`, asked of every instance every half second from the fault's start until writes came back (limit ${seconds(READINESS_LIMIT_MS)}):`,
    '',
    '| phase | probes | by answer | longest answer | no answer within the limit |',
    '|---|---:|---|---:|---:|',
    ...run.results.map((r) => {
      const statuses = Object.entries(r.readiness.byStatus).map(([status, n]) => `${n}× ${status}`).join(', ');
      return `| ${r.name} | ${r.readiness.probes} | ${statuses} | ${seconds(r.readiness.longestAnswerMs)} | ${r.readiness.timeouts} |`;
    }),
    '',
    'What the faults themselves did:',
    '',
    ...run.results.filter((r) => r.notes.length > 0).map((r) => `- ${r.name}: ${r.notes.join('; ')}.`),
    '',
    '### Logs',
    '',
    'Lines each instance wrote during the phase (at `LOG_LEVEL=warn`), and warn-or-worse lines per second',
    'from the fault\'s start until writes came back.',
    '',
    '| phase | instance | lines | warn | error | not JSON | warn+ per s in the outage | most frequent |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...run.results.flatMap((r) =>
      r.logs.map((l) => {
        const top = l.topMessages.map((m) => `${m.times}× ${escape(m.message)}`).join('<br>');
        return `| ${r.name} | ${l.instance} | ${l.lines} | ${l.warn} | ${l.error} | ${l.other} | ${l.warnPerSecondDuringOutage.toFixed(1)} | ${top} |`;
      }),
    ),
    '',
    '## The data afterwards',
    '',
    '| check | value |',
    '|---|---:|',
    `| bookings acknowledged (2xx) | ${data.acknowledged} |`,
    `| bookings the load stored | ${data.bookingsStored} |`,
    `| **acknowledged but missing** | **${data.acknowledgedMissing}** |`,
    `| **overlapping pairs of live bookings of one agent** | **${data.overlappingPairs}** |`,
    `| committed, the client never told so (for information) | ${describeUnacknowledged(data)} |`,
    '',
    'Each request carries a unique `meta.fault_request`, so a booking stored for a request that timed out,',
    'lost its connection or was answered with an error is found and counted by how its request ended.',
    '',
    `Final shutdown (SIGTERM, load stopped): ${run.shutdown.join('; ')}.`,
    '',
    '## Issue 28, as this run saw it',
    '',
    '| expectation | seen | met |',
    '|---|---|---|',
    ...expectations(run).map(([expectation, seen, met]) => `| ${expectation} | ${seen} | ${met ? 'yes' : '**no**'} |`),
    '',
    '## Verdict',
    '',
    '```',
    run.verdict,
    '```',
    '',
  ];
  return lines.join('\n');
}

/** The issue's promises that this run can observe, each with what was seen. */
function expectations(run: RunRecord): [string, string, boolean][] {
  const phase = (name: string): PhaseResult | undefined => run.results.find((r) => r.name === name);
  const databasePhases = run.results.filter((r) => ['freeze', 'restart', 'stop'].includes(r.name));
  const freeze = phase('freeze');
  const sigterm = phase('sigterm');
  const timeouts = databasePhases.reduce((sum, r) => sum + r.byKind.timeout, 0);
  const slowestReady = Math.max(0, ...run.results.map((r) => r.readiness.longestAnswerMs));
  const readyTimeouts = run.results.reduce((sum, r) => sum + r.readiness.timeouts, 0);
  const warnLines = Math.max(0, ...databasePhases.flatMap((r) => r.logs.map((l) => l.warn + l.error)));
  const withoutRetryAfter = run.results.reduce((sum, r) => sum + r.unavailableWithoutRetryAfter, 0);
  const gaveUpButCommitted = run.data.committedUnacknowledged.timeout ?? 0;
  const sigtermExit = sigterm?.notes.find((note) => note.includes('exited with code 0')) !== undefined;
  return [
    ['no acknowledged booking lost, no agent double-booked', `${run.data.acknowledgedMissing} missing, ${run.data.overlappingPairs} overlapping pairs`, run.data.acknowledgedMissing === 0 && run.data.overlappingPairs === 0],
    [
      `a frozen or stopped database does not hang requests: none left unanswered within the client's ${seconds(run.settings.requestTimeoutMs)}, and none held for the whole ${seconds(run.settings.freezeMs)} freeze`,
      `${timeouts} timeouts; longest answer while frozen ${seconds(freeze?.longestAnswerMs ?? 0)}`,
      timeouts === 0 && (freeze?.longestAnswerMs ?? 0) < run.settings.freezeMs,
    ],
    ['nothing committed after its client gave up', `${gaveUpButCommitted} bookings`, gaveUpButCommitted === 0],
    ['`/readyz` answers within a second whatever the database does', `slowest ${seconds(slowestReady)}, ${readyTimeouts} unanswered`, slowestReady < 1_000 && readyTimeouts === 0],
    ['`Retry-After` on every 503', `${withoutRetryAfter} without`, withoutRetryAfter === 0],
    ['a database outage logs once (a handful of lines per instance, not one per request)', `at most ${warnLines} warn+ lines per instance in one phase`, warnLines <= 10],
    ['SIGTERM under load: exit 0 within the grace period', sigterm?.notes.join('; ') ?? 'not run', sigtermExit],
    ['writes come back by themselves after every fault', `${run.results.filter((r) => r.recoveryMs === undefined).length} phases without`, run.results.every((r) => r.recoveryMs !== undefined)],
  ];
}

function describeUnacknowledged(data: DataCheck): string {
  const entries = Object.entries(data.committedUnacknowledged);
  if (entries.length === 0) return '0';
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return `${total} (${entries.map(([kind, n]) => `${n} ${kind}`).join(', ')})`;
}

function escape(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

import type { Instance } from './instances.js';
import type { BookingLoad, Outcome, OutcomeKind } from './load.js';

export interface Phase {
  name: string;
  /** What the phase does to the system, one sentence for the report. */
  description: string;
  /** The instances whose writes must come back for the phase to count as recovered. */
  affected: readonly Instance[];
  /** Injects the fault and resolves when it is over (the database back, the instance restarted), with what it saw. */
  inject: () => Promise<string[]>;
}

export interface InstanceLogs {
  instance: string;
  lines: number;
  warn: number;
  error: number;
  /** Lines that are not pino's JSON (a crash on stderr). */
  other: number;
  /** Warn and error lines per second from the fault's start until writes came back. */
  warnPerSecondDuringOutage: number;
  topMessages: { message: string; times: number }[];
}

/** `/readyz` asked of every instance throughout the outage, each at most every half second. */
export interface ReadinessProbes {
  probes: number;
  /** The slowest answer of any status. */
  longestAnswerMs: number;
  /** Probes without an answer within READINESS_LIMIT_MS. */
  timeouts: number;
  byStatus: Record<string, number>;
}

export const READINESS_LIMIT_MS = 5_000;

export interface PhaseResult {
  name: string;
  description: string;
  faultMs: number;
  /** From the fault's end to the first acknowledged write sent after it; undefined: not within the limit. */
  recoveryMs: number | undefined;
  requests: number;
  byKind: Record<OutcomeKind, number>;
  /** 503 answers without a Retry-After header. */
  unavailableWithoutRetryAfter: number;
  /** Other answers by HTTP status. */
  otherStatuses: Record<string, number>;
  /** From the first failed request's sending to the last one's end: how long clients saw writes fail. */
  failingMs: number;
  /** The slowest HTTP answer (a request the client gave up on is a timeout, not an answer). */
  longestAnswerMs: number;
  readiness: ReadinessProbes;
  notes: string[];
  logs: InstanceLogs[];
}

export interface PhaseTiming {
  leadMs: number;
  settleMs: number;
  recoveryLimitMs: number;
}

const KINDS: OutcomeKind[] = ['created', 'conflict', 'unavailable', 'timeout', 'connection', 'other'];

/**
 * Load runs throughout: a lead-in under normal conditions, the fault, then the wait for an
 * acknowledged write sent after the fault ended, then a settling time. Requests count under the
 * phase they were sent in.
 */
export async function runPhase(phase: Phase, load: BookingLoad, instances: readonly Instance[], timing: PhaseTiming): Promise<PhaseResult> {
  process.stderr.write(`phase ${phase.name}: ${phase.description}\n`);
  load.phase = phase.name;
  const start = Date.now();
  await pause(timing.leadMs);
  const faultStart = Date.now();
  let outageOver = false;
  const readiness = probeReadiness(instances, () => outageOver);
  const notes = await phase.inject();
  const faultEnd = Date.now();
  const recovered = await load.nextCreated(faultEnd, phase.affected, timing.recoveryLimitMs);
  outageOver = true;
  const recoveryMs = recovered && Math.max(0, recovered.doneAt - faultEnd);
  const outageEnd = recovered?.doneAt ?? Date.now();
  await pause(timing.settleMs);
  const end = Date.now();

  const outcomes = load.outcomes.filter((o) => o.phase === phase.name);
  const failures = outcomes.filter((o) => o.kind !== 'created' && o.kind !== 'conflict');
  const result: PhaseResult = {
    name: phase.name,
    description: phase.description,
    faultMs: faultEnd - faultStart,
    recoveryMs,
    requests: outcomes.length,
    byKind: Object.fromEntries(KINDS.map((kind) => [kind, outcomes.filter((o) => o.kind === kind).length])) as Record<OutcomeKind, number>,
    unavailableWithoutRetryAfter: outcomes.filter((o) => o.kind === 'unavailable' && !o.retryAfter).length,
    otherStatuses: tallyStatuses(outcomes.filter((o) => o.kind === 'other')),
    failingMs: failures.length === 0 ? 0 : Math.max(...failures.map((o) => o.doneAt)) - Math.min(...failures.map((o) => o.sentAt)),
    longestAnswerMs: Math.max(0, ...outcomes.filter((o) => o.status !== undefined).map((o) => o.doneAt - o.sentAt)),
    readiness: await readiness,
    notes,
    logs: instances.map((instance) => {
      const counts = instance.logCounts(start, end);
      const outage = instance.logCounts(faultStart, outageEnd);
      const outageSeconds = Math.max(1, (outageEnd - faultStart) / 1000);
      return {
        instance: instance.name,
        ...counts,
        warnPerSecondDuringOutage: (outage.warn + outage.error + outage.other) / outageSeconds,
        topMessages: instance.topMessages(start, end),
      };
    }),
  };
  process.stderr.write(`  ${summarise(result)}\n`);
  return result;
}

export function summarise(result: PhaseResult): string {
  const kinds = KINDS.filter((kind) => result.byKind[kind] > 0).map((kind) => `${kind} ${result.byKind[kind]}`);
  const recovery = result.recoveryMs === undefined ? 'writes NOT back' : `writes back after ${seconds(result.recoveryMs)}`;
  return `${result.requests} requests (${kinds.join(', ')}), longest answer ${seconds(result.longestAnswerMs)}, ${recovery}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function probeReadiness(instances: readonly Instance[], over: () => boolean): Promise<ReadinessProbes> {
  const result: ReadinessProbes = { probes: 0, longestAnswerMs: 0, timeouts: 0, byStatus: {} };
  const probeOne = async (instance: Instance): Promise<void> => {
    while (!over()) {
      const sentAt = Date.now();
      const status = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(READINESS_LIMIT_MS) }).then(
        (response) => String(response.status),
        (error: unknown) => (error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'connection'),
      );
      result.probes++;
      if (status === 'timeout') result.timeouts++;
      else if (status !== 'connection') result.longestAnswerMs = Math.max(result.longestAnswerMs, Date.now() - sentAt);
      result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
      await pause(500);
    }
  };
  await Promise.all(instances.map(probeOne));
  return result;
}

function tallyStatuses(outcomes: readonly Outcome[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const outcome of outcomes) tally[String(outcome.status)] = (tally[String(outcome.status)] ?? 0) + 1;
  return tally;
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

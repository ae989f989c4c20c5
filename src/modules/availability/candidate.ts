import type { Schedule, Weekly } from '../schedules/index.js';
import type { VersionedAgent } from './busy-times.js';

export interface Candidate {
  agentId: number;
  /** The agent's own schedule, else the site's (weekly hours and exceptions alike). */
  schedule: Schedule;
  /** The agent's hours for this service (contract §7), or null. */
  customHours: Weekly | null;
  durationMinutes: number;
  customPriceCents: number | null;
}

/** A candidate of a slot search, with the busy-time version read with its connection (BusyTimes). */
export type VersionedCandidate = Candidate & VersionedAgent;

/** Site settings as the engine needs them, read once per request. */
export interface SlotContext {
  timezone: string;
  intervalMinutes: number;
  /** Now plus the lead time: nothing may start before it. */
  earliest: number;
  now: number;
}

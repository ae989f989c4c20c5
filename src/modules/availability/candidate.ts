import type { Schedule, Weekly } from '../schedules/index.js';
import type { VersionedAgent } from './busy-times.js';

export interface Candidate {
  agentId: number;
  /** The agent's own schedule, else the site's (weekly hours and exceptions alike). */
  schedule: Schedule;
  /** The site's schedule when the agent has hours of its own: its exceptions bind the agent too; else null. */
  site: Schedule | null;
  /** The agent's hours for this service (contract §7), or null. */
  customHours: Weekly | null;
  durationMinutes: number;
  customPriceCents: number | null;
  /** Minutes kept free before and after a booking: the connection's, else the service's. */
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
}

/** A candidate of a slot search, with the busy-time version read with its connection (BusyTimes). */
export type VersionedCandidate = Candidate & VersionedAgent;

/** Site settings as the engine needs them, read once per request; serviceWindow narrows them to one service. */
export interface SlotContext {
  timezone: string;
  intervalMinutes: number;
  /** Now plus the notice a booking needs: nothing may start before it. */
  earliest: number;
  /** Now plus the days a booking may be made ahead: nothing may start after it. */
  latest: number;
  /** The rules that set earliest and latest, as refusals name them. */
  window: { noticeMinutes: number; noticeRule: string; advanceDays: number; advanceRule: string };
  now: number;
}

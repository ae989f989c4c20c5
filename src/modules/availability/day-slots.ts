import type { Schedule, Weekly } from '../schedules/index.js';
import type { FreeSlot } from './engine.js';
import type { ServiceRow } from './repository.js';
import { type SlotContext, type VersionedCandidate } from './candidate.js';

/**
 * Days kept in all, at most: the least recently asked go first. A day of ten agents' half-hour
 * slots, with what is made of it, takes some 13 KB: this keeps an instance under about 30 MB.
 */
const DEFAULT_LIMIT = 2_000;
/** Distinct schedule texts given an id, at most, before the ids start over (with new numbers). */
const SCHEDULE_IDS_LIMIT = 10_000;

/**
 * The free slots of days already worked out, kept by one app instance. A day's slots depend on
 * nothing but what its key names: the site's zone and slot interval, the service and its
 * capacity (the seats a slot has left), and each candidate's id, busy-time version, duration,
 * buffers, hours (with the site's, whose exceptions bind an agent on its own hours) and hours
 * for the service. Every one of these is read from the database by each request, and a booking
 * write (its span, buffers and attendees) raises its agent's version, so a change anywhere, by
 * any instance, makes a new key. The moment of asking, and with it the booking window, counts
 * only on a day that the window's edges cut into or that lies beyond it: such days are not kept.
 */
export class DaySlots {
  // Map order is recency: a day asked for moves to the end, the limit drops from the front.
  private readonly days = new Map<string, readonly FreeSlot[]>();
  private readonly scheduleIds = new Map<string, number>();
  private readonly idsOfObjects = new WeakMap<Schedule | Weekly, number>();
  private nextScheduleId = 1;

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  /** What the slots of every day of one search depend on, but the date. */
  searchKey(candidates: readonly VersionedCandidate[], service: ServiceRow, context: SlotContext): string {
    const parts: (string | number)[] = [context.timezone, context.intervalMinutes, service.id, service.capacity_max];
    for (const c of candidates) {
      parts.push(
        c.agentId,
        c.busyVersion,
        c.durationMinutes,
        c.bufferBeforeMinutes,
        c.bufferAfterMinutes,
        this.scheduleId(c.schedule),
        c.site ? this.scheduleId(c.site) : 0,
        c.customHours ? this.scheduleId(c.customHours) : 0,
      );
    }
    return parts.join(',');
  }

  get(searchKey: string, date: string): readonly FreeSlot[] | undefined {
    const key = `${date}|${searchKey}`;
    const slots = this.days.get(key);
    if (slots) {
      this.days.delete(key);
      this.days.set(key, slots);
    }
    return slots;
  }

  set(searchKey: string, date: string, slots: readonly FreeSlot[]): void {
    this.days.set(`${date}|${searchKey}`, slots);
    if (this.days.size > this.limit) this.days.delete(this.days.keys().next().value as string);
  }

  /** The same number for the same hours, however often they are parsed; never one number for two. */
  private scheduleId(hours: Schedule | Weekly): number {
    let id = this.idsOfObjects.get(hours);
    if (id === undefined) {
      const text = JSON.stringify(hours);
      id = this.scheduleIds.get(text);
      if (id === undefined) {
        if (this.scheduleIds.size >= SCHEDULE_IDS_LIMIT) this.scheduleIds.clear();
        id = this.nextScheduleId++;
        this.scheduleIds.set(text, id);
      }
      this.idsOfObjects.set(hours, id);
    }
    return id;
  }
}

import type { Db } from '../../db/database.js';
import type { BusyBooking, Span } from './engine.js';
import { busyBookingsStarting, LONGEST_BOOKING_MS, reachOf } from './repository.js';

/** Bookings are kept in blocks by their start: a UTC week each, so a range reads only the blocks it touches. */
const BLOCK_MS = 7 * 86_400_000;
/** Bookings (and blocks, one each) kept in all, at most: the least recently asked agents go first. */
const DEFAULT_LIMIT = 250_000;

interface AgentTimes {
  /** The agent's busy-time version the blocks belong to. */
  version: number;
  /** Block number → the bookings starting in it, by start. */
  blocks: Map<number, BusyBooking[]>;
  /** What the blocks count towards the limit. */
  size: number;
}

/** An agent with the busy-time version just read from the database (connectedAgents). */
export interface VersionedAgent {
  agentId: number;
  busyVersion: number;
}

function blockOf(instant: number): number {
  return Math.floor(instant / BLOCK_MS);
}

/**
 * The busy times of agents, kept by one app instance between availability requests. An agent's
 * bookings are reused while the version the request has read for the agent is the one they were
 * read under; each write of an agent's bookings raises that version in its own transaction,
 * whatever the process or instance, so a changed agent is read again on the next request.
 *
 * The version is read before the bookings, so the bookings kept under a version are never older
 * than it (at worst newer, which only costs a read). Only slot searches use this; writes check
 * the database under their agent locks.
 */
export class BusyTimes {
  // Map order is recency: an agent asked for moves to the end, the limit drops from the front.
  private readonly agents = new Map<number, AgentTimes>();
  private size = 0;

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  /** Each agent's bookings that occupy time and overlap `asked` or lie within buffer reach of it (reachOf), by start. */
  async bookingsOf(db: Db, agents: readonly VersionedAgent[], asked: Span): Promise<Map<number, BusyBooking[]>> {
    const range = reachOf(asked);
    // Bookings starting up to the longest booking before the range may reach into it.
    const first = blockOf(range.start - LONGEST_BOOKING_MS);
    const last = blockOf(range.end - 1);
    const versions = new Map(agents.map((a) => [a.agentId, a.busyVersion]));
    const found = new Map<number, Map<number, BusyBooking[]>>();
    // The blocks each agent lacks, from its first to its last missing one, grouped: agents asked
    // together usually lack the same blocks, and one statement reads them all.
    const missing = new Map<string, { from: number; to: number; agentIds: number[] }>();
    for (const { agentId, busyVersion } of agents) {
      const times = this.current(agentId, busyVersion);
      const blocks = new Map<number, BusyBooking[]>();
      let from = Infinity;
      let to = -Infinity;
      for (let block = first; block <= last; block++) {
        const kept = times?.blocks.get(block);
        if (kept) blocks.set(block, kept);
        else {
          from = Math.min(from, block);
          to = block;
        }
      }
      found.set(agentId, blocks);
      if (to < from) continue;
      const key = `${from}:${to}`;
      const group = missing.get(key);
      if (group) group.agentIds.push(agentId);
      else missing.set(key, { from, to, agentIds: [agentId] });
    }

    for (const { from, to, agentIds } of missing.values()) {
      const rows = await busyBookingsStarting(db, agentIds, { start: from * BLOCK_MS, end: (to + 1) * BLOCK_MS });
      const read = new Map<number, Map<number, BusyBooking[]>>(agentIds.map((id) => [id, new Map()]));
      for (const row of rows) {
        const blocks = read.get(row.agentId) as Map<number, BusyBooking[]>;
        const block = blockOf(row.start);
        // Stored instants compare as text only within the years 0000–9999: keep only what was asked.
        if (block < from || block > to) continue;
        const booking: BusyBooking = {
          id: row.id,
          serviceId: row.serviceId,
          start: row.start,
          end: row.end,
          bufferBefore: row.bufferBefore,
          bufferAfter: row.bufferAfter,
          seats: row.seats,
        };
        const list = blocks.get(block);
        if (list) list.push(booking);
        else blocks.set(block, [booking]);
      }
      for (const agentId of agentIds) {
        const blocks = read.get(agentId) as Map<number, BusyBooking[]>;
        for (let block = from; block <= to; block++) if (!blocks.has(block)) blocks.set(block, []);
        const wanted = found.get(agentId) as Map<number, BusyBooking[]>;
        for (const [block, list] of blocks) wanted.set(block, list);
        this.keep(agentId, versions.get(agentId) as number, blocks);
      }
    }

    const result = new Map<number, BusyBooking[]>();
    for (const [agentId, blocks] of found) {
      const parts: BusyBooking[][] = [];
      for (let block = first; block <= last; block++) {
        const list = blocks.get(block) ?? [];
        // Only a block reaching past either end of the range holds bookings outside it.
        const inside = block * BLOCK_MS >= range.start && (block + 1) * BLOCK_MS <= range.end;
        parts.push(inside ? list : list.filter((b) => b.end > range.start && b.start < range.end));
      }
      result.set(agentId, ([] as BusyBooking[]).concat(...parts));
    }
    return result;
  }

  /** The agent's kept times if they belong to `version`, marked as just used. */
  private current(agentId: number, version: number): AgentTimes | undefined {
    const times = this.agents.get(agentId);
    if (!times || times.version !== version) return undefined;
    this.agents.delete(agentId);
    this.agents.set(agentId, times);
    return times;
  }

  private keep(agentId: number, version: number, blocks: Map<number, BusyBooking[]>): void {
    let times = this.agents.get(agentId);
    // A concurrent request already read the agent under a later version: this read may be older.
    if (times && times.version > version) return;
    if (!times || times.version < version) {
      if (times) this.drop(agentId, times);
      times = { version, blocks: new Map(), size: 0 };
      this.agents.set(agentId, times);
    }
    for (const [block, list] of blocks) {
      const before = times.blocks.get(block);
      const change = list.length + 1 - (before ? before.length + 1 : 0);
      times.blocks.set(block, list);
      times.size += change;
      this.size += change;
    }
    for (const [id, oldest] of this.agents) {
      if (this.size <= this.limit) break;
      this.drop(id, oldest);
    }
  }

  private drop(agentId: number, times: AgentTimes): void {
    this.agents.delete(agentId);
    this.size -= times.size;
  }

  /** Bookings and blocks kept, for tests of the limit. */
  get keptSize(): number {
    return this.size;
  }
}

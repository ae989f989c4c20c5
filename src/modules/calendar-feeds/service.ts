import { createHash, randomBytes } from 'node:crypto';
import { notFound } from '../../core/errors.js';
import { offsetOf, pageRequest, pagination } from '../../core/pagination.js';
import type { Db } from '../../db/database.js';
import { findAgent } from '../agents/index.js';
import { agentCalendarBookings, calendarBooking, type CalendarBookingRow } from '../bookings/index.js';
import { bookingUid, calendarOf, type CalendarEntry } from '../calendar/index.js';
import * as repository from './repository.js';
import type { CalendarFeedView, CalendarFeedWithUrlView, FeedCreateBody, FeedListQuery } from './schemas.js';

const DAY_MS = 86_400_000;
/** The span a feed covers around now: what an agent looks back on and plans ahead. */
const DAYS_BEHIND = 30;
const DAYS_AHEAD = 365;
/** A bound on one answer's size; an agent's year of live bookings stays far below it. */
const MAX_ENTRIES = 5_000;
/** Calendars poll feeds every few minutes: a fetch is recorded only this long after the last one. */
const TOUCH_INTERVAL_MS = 60_000;
/** 32 random bytes in base64url, as createFeed makes them. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function fullName(first: string, last: string): string {
  return `${first} ${last}`.trim();
}

function agentName(row: { agent_display_name: string | null; agent_first_name: string; agent_last_name: string }): string {
  return row.agent_display_name ?? fullName(row.agent_first_name, row.agent_last_name);
}

function place(row: CalendarBookingRow): string {
  return row.location_address ? `${row.location_name}, ${row.location_address}` : row.location_name;
}

/** A booking that is no longer live stays in a calendar as what became of it. */
const ENTRY_STATUS = { pending: 'tentative', approved: 'confirmed', completed: 'confirmed', no_show: 'confirmed', cancelled: 'cancelled' } as const;

function entryOf(row: CalendarBookingRow, publicUrl: string, stampedAt: string, shown: Pick<CalendarEntry, 'summary' | 'description'>): CalendarEntry {
  return {
    uid: bookingUid(row.id, publicUrl),
    sequence: row.calendar_sequence,
    startsAt: row.start_at,
    endsAt: row.end_at,
    location: place(row),
    status: ENTRY_STATUS[row.status],
    stampedAt,
    ...shown,
  };
}

/** The booking in its agent's calendar: who comes, how to reach them, and what they asked. */
function agentEntry(row: CalendarBookingRow, publicUrl: string, stampedAt: string): CalendarEntry {
  const customer = fullName(row.customer_first_name, row.customer_last_name);
  const lines = [`Booking ${row.booking_code}`, `Customer: ${customer}`];
  if (row.customer_email) lines.push(`Email: ${row.customer_email}`);
  if (row.customer_phone) lines.push(`Phone: ${row.customer_phone}`);
  lines.push(`Attendees: ${row.attendees}`);
  if (row.customer_comment) lines.push(`Comment: ${row.customer_comment}`);
  if (row.notes) lines.push(`Notes: ${row.notes}`);
  return entryOf(row, publicUrl, stampedAt, { summary: `${row.service_name} – ${customer}`, description: lines.join('\n') });
}

/** The booking in its customer's calendar: the agent's notes are staff's, not shown. */
function customerEntry(row: CalendarBookingRow, publicUrl: string, stampedAt: string): CalendarEntry {
  const agent = agentName(row);
  const lines = [`Booking ${row.booking_code}`, `${row.service_name} with ${agent}`];
  if (row.attendees > 1) lines.push(`Attendees: ${row.attendees}`);
  return entryOf(row, publicUrl, stampedAt, { summary: `${row.service_name} with ${agent}`, description: lines.join('\n') });
}

/** The booking's iCalendar document as its agent's or its customer's manage page offers it; undefined when it is gone. */
export async function bookingCalendar(db: Db, publicUrl: string, bookingId: number, role: 'agent' | 'customer', now = new Date()): Promise<string | undefined> {
  const row = await calendarBooking(db, bookingId);
  if (!row) return undefined;
  const entry = (role === 'agent' ? agentEntry : customerEntry)(row, publicUrl, now.toISOString());
  return calendarOf('PUBLISH', [entry]);
}

async function requireAgent(db: Db, id: number): Promise<void> {
  if (!(await findAgent(db, id))) throw notFound('agent_not_found', 'Agent', id);
}

/** POST /agents/{id}/calendar-feeds: a new feed, its secret URL in this answer only (its token's hash is stored). */
export async function createFeed(db: Db, publicUrl: string, agentId: number, body: FeedCreateBody): Promise<CalendarFeedWithUrlView> {
  await requireAgent(db, agentId);
  const token = randomBytes(32).toString('base64url');
  const row = await repository.insertFeed(db, { agent_id: agentId, token_hash: hashOf(token), label: body.label ?? null, created_at: new Date().toISOString(), last_used_at: null });
  return { id: row.id, agent_id: row.agent_id, label: row.label, url: `${publicUrl}/calendar-feeds/${token}.ics`, created_at: row.created_at };
}

export async function listFeeds(db: Db, agentId: number, query: FeedListQuery) {
  await requireAgent(db, agentId);
  const page = pageRequest(query, 20);
  const { rows, total } = await repository.listFeeds(db, agentId, page.perPage, offsetOf(page));
  const data: CalendarFeedView[] = rows;
  return { success: true as const, data, pagination: pagination(page, total) };
}

/** Revokes the feed: its URL answers 404 from now on. */
export async function deleteFeed(db: Db, agentId: number, feedId: number): Promise<void> {
  await requireAgent(db, agentId);
  if (!(await repository.deleteFeed(db, agentId, feedId))) throw notFound('calendar_feed_not_found', 'Calendar feed', feedId);
}

/**
 * The feed's iCalendar document: its agent's pending and approved bookings from 30 days back to
 * a year ahead. Undefined for a token of no feed (revoked, or its agent deleted). The token is
 * found by its hash, so a lookup's timing tells nothing of any stored token.
 */
export async function feedDocument(db: Db, publicUrl: string, token: string, now = new Date()): Promise<string | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const feed = await repository.feedByTokenHash(db, hashOf(token));
  if (!feed) return undefined;
  const at = now.getTime();
  const stampedAt = now.toISOString();
  const rows = await agentCalendarBookings(db, feed.agent_id, new Date(at - DAYS_BEHIND * DAY_MS).toISOString(), new Date(at + DAYS_AHEAD * DAY_MS).toISOString(), MAX_ENTRIES);
  await repository.touchFeed(db, feed.id, stampedAt, new Date(at - TOUCH_INTERVAL_MS).toISOString());
  return calendarOf(
    'PUBLISH',
    rows.map((row) => agentEntry(row, publicUrl, stampedAt)),
    `${agentName(feed)} bookings`,
  );
}

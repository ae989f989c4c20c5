import type { Actor, ChangeSource } from '../../core/actor.js';
import type { Db } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import { AppError } from '../../core/errors.js';
import { eventsAfter, feedPosition, insertEvents, type EventRow, type FeedPosition } from './repository.js';
import { EVENT_TYPES, type EventType } from './table.js';

export interface NewEvent {
  type: EventType;
  resourceId: number;
  /** The resource as its GET returns it after the change, less any secret (manage-link keys). */
  data: object;
  /** For updates: the changed fields' old values (see changedAttributes). */
  previousAttributes?: Record<string, unknown>;
}

/**
 * Records events of a change. Call it with the transaction that makes the change, so that the
 * events exist exactly when the change does.
 */
export async function recordEvents(db: Db, actor: Actor, events: readonly NewEvent[]): Promise<void> {
  const at = nowIso();
  const { source } = actor;
  await insertEvents(
    db,
    events.map((event) => ({
      type: event.type,
      resource_id: event.resourceId,
      data: JSON.stringify(event.data),
      previous_attributes: event.previousAttributes === undefined ? null : JSON.stringify(event.previousAttributes),
      source_type: source.type,
      source_id: source.type === 'api_key' ? source.api_key_id : null,
      source_role: source.type === 'manage_link' ? source.role : null,
      request_id: actor.requestId,
      created_at: at,
    })),
  );
}

export function recordEvent(db: Db, actor: Actor, event: NewEvent): Promise<void> {
  return recordEvents(db, actor, [event]);
}

const BOOKKEEPING_FIELDS = new Set(['updated_at']);

/**
 * The top-level fields of `after` whose value differs from `before`, with their old values
 * (Stripe's previous_attributes). Undefined when nothing but bookkeeping fields such as
 * updated_at changed: such a change is no change, and records no event.
 */
export function changedAttributes(before: object, after: object): Record<string, unknown> | undefined {
  const old = before as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  let meaningful = false;
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(old[key]) === JSON.stringify(value)) continue;
    changed[key] = old[key] ?? null;
    if (!BOOKKEEPING_FIELDS.has(key)) meaningful = true;
  }
  return meaningful ? changed : undefined;
}

/** An event as GET /events lists it and a webhook delivers it. */
export interface EventView {
  id: number;
  type: EventType;
  created_at: string;
  data: Record<string, unknown>;
  previous_attributes: Record<string, unknown> | null;
  request_id: string | null;
  source: ChangeSource;
}

function sourceOf(row: EventRow): ChangeSource {
  switch (row.source_type) {
    case 'api_key':
      return { type: 'api_key', api_key_id: row.source_id ?? 0 };
    case 'manage_link':
      return { type: 'manage_link', role: row.source_role ?? 'customer' };
    default:
      return { type: row.source_type };
  }
}

export function presentEvent(row: EventRow): EventView {
  return {
    id: row.id,
    type: row.type,
    created_at: row.created_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
    previous_attributes: row.previous_attributes === null ? null : (JSON.parse(row.previous_attributes) as Record<string, unknown>),
    request_id: row.request_id,
    source: sourceOf(row),
  };
}

export interface EventListRequest {
  after?: number;
  types?: string;
  limit?: number;
}

function parseTypes(text: string | undefined): EventType[] | undefined {
  if (text === undefined) return undefined;
  const types = text.split(',');
  const unknown = types.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown !== undefined) throw invalidQuery('types', `unknown event type ${unknown}; must be one of ${EVENT_TYPES.join(', ')}`);
  return types as EventType[];
}

function invalidQuery(field: string, message: string): AppError {
  return new AppError('invalid_request', message, { [field]: message });
}

/** A page of the feed: GET /events. */
export async function listEvents(db: Db, request: EventListRequest) {
  const types = parseTypes(request.types);
  const limit = request.limit ?? 100;
  let after: FeedPosition | undefined;
  if (request.after !== undefined) {
    after = await feedPosition(db, request.after);
    if (after === undefined) throw invalidQuery('after', `event ${request.after} does not exist`);
  }
  // One more than asked tells whether more follow.
  const rows = await eventsAfter(db, { after, types, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    data: page.map(presentEvent),
    has_more: rows.length > limit,
    next_after: page.at(-1)?.id ?? request.after ?? null,
  };
}

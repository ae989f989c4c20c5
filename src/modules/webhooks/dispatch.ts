import { WEBHOOK_DISPATCH_LOCK } from '../../core/locks.js';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { eventHeadsAfter, feedPosition, type EventRow, type FeedPosition } from '../events/index.js';
import type { PeriodicTask } from '../jobs/index.js';
import * as repository from './repository.js';

const BATCH = 500;

async function positionOf(db: Db, lastEventId: number | null): Promise<FeedPosition | undefined> {
  return lastEventId === null ? undefined : feedPosition(db, lastEventId);
}

interface Subscriber {
  id: number;
  createdAt: string;
  /** Every type when null. */
  types: ReadonlySet<string> | null;
}

function subscriberOf(endpoint: Pick<repository.EndpointRow, 'id' | 'event_types' | 'created_at'>): Subscriber {
  return { id: endpoint.id, createdAt: endpoint.created_at, types: endpoint.event_types === null ? null : new Set(JSON.parse(endpoint.event_types) as string[]) };
}

function wants(subscriber: Subscriber, event: Pick<EventRow, 'type' | 'created_at'>): boolean {
  // An endpoint hears of changes made after it was made, not of the past.
  if (event.created_at < subscriber.createdAt) return false;
  return subscriber.types === null || subscriber.types.has(event.type);
}

/**
 * Turns new events into deliveries, one per enabled endpoint that wants each, walking the change
 * feed from where it last stopped. The deliveries and the new place are written in one transaction
 * under the dispatch lock, so with any number of instances each event is dispatched exactly once;
 * the feed's order guarantees that no event is passed while its transaction is still open.
 */
async function dispatchEvents(db: Db, now: Date): Promise<number> {
  // Cheap when nothing is new: one read of the place and one of the feed, no lock.
  const after = await positionOf(db, await repository.dispatchCursor(db));
  if ((await eventHeadsAfter(db, { after, types: undefined, limit: 1 })).length === 0) return 0;
  let dispatched = 0;
  for (;;) {
    const more = await lockedTransaction(db, [WEBHOOK_DISPATCH_LOCK], async (trx) => {
      const position = await positionOf(trx, await repository.dispatchCursor(trx));
      const events = await eventHeadsAfter(trx, { after: position, types: undefined, limit: BATCH });
      const last = events.at(-1);
      if (last === undefined) return false;
      const subscribers = (await repository.enabledEndpointsForDispatch(trx)).map(subscriberOf);
      const at = now.toISOString();
      const deliveries = events.flatMap((event) =>
        subscribers.filter((subscriber) => wants(subscriber, event)).map((subscriber) => repository.newDelivery(subscriber.id, { eventId: event.id, eventType: event.type }, at)),
      );
      await repository.insertDeliveries(trx, deliveries);
      await repository.moveDispatchCursor(trx, last.id, at);
      dispatched += deliveries.length;
      return events.length === BATCH;
    });
    if (!more) return dispatched;
  }
}

export const dispatchTask: PeriodicTask = { name: 'webhook-dispatch', run: async (db, now) => void (await dispatchEvents(db, now)) };

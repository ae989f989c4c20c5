import type { Actor } from '../../core/actor.js';
import type { Db } from '../../db/database.js';
import { changedAttributes, recordEvents, type EventType, type NewEvent } from '../events/index.js';
import type { ManageLinks } from '../manage-links/index.js';
import type { BookingEvents } from '../orders/index.js';
import { getSettings } from '../settings/index.js';
import { writeChangeNotices } from './notices.js';
import { loadDetail, withoutManageLinks } from './present.js';

/** One event per change, named by what matters most to a subscriber: cancelled, another status, a new time or place, or anything else. */
export function bookingEventType(oldStatus: string, newStatus: string, rescheduled: boolean): EventType {
  if (newStatus !== oldStatus) return newStatus === 'cancelled' ? 'booking.cancelled' : 'booking.status_changed';
  return rescheduled ? 'booking.rescheduled' : 'booking.updated';
}

/**
 * The events of bookings changed by a write of their order (cancelling or transferring it, a
 * payment moving their payment status): each booking as GET shows it before and after `work`;
 * and the mails of those its customer sees change (a cancelled order's bookings are cancelled
 * to their customers and agents).
 */
export function bookingEventsOfOrders(links: ManageLinks): BookingEvents {
  return async (trx: Db, actor: Actor, bookingIds: readonly number[], work) => {
    if (bookingIds.length === 0) return work();
    const settings = await getSettings(trx);
    const { currency } = settings;
    const views = async () => {
      const shown = [];
      for (const id of bookingIds) shown.push((await loadDetail(trx, id, links, currency))!);
      return shown;
    };
    const before = await views();
    const result = await work();
    const after = await views();
    const events = after.flatMap((view, i): NewEvent[] => {
      const old = withoutManageLinks(before[i]!);
      const data = withoutManageLinks(view);
      const previousAttributes = changedAttributes(old, data);
      return previousAttributes === undefined ? [] : [{ type: bookingEventType(old.status, data.status, false), resourceId: view.id, data, previousAttributes }];
    });
    await recordEvents(trx, actor, events);
    for (const [i, view] of after.entries()) await writeChangeNotices(trx, before[i]!, view, { staffNotices: settings.staff_notifications });
    return result;
  };
}

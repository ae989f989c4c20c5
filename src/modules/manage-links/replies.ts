import type { Db } from '../../db/database.js';
import type { StoredReplyFilter } from '../../http/idempotency.js';
import type { ManageLinks, ManageRole } from './keys.js';
import { linkedBookingsByCode } from './repository.js';

/**
 * Stands for a key left out of a stored reply. JSON text has no raw control character (a string
 * holding one is written escaped), so no value a client sent can look like this mark.
 */
const LEFT_OUT = '\u0001';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decodedCode(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * Idempotency replies stored without manage-link keys: a link's key is left out when it is the
 * current key of the booking the link names (so text a client sent is never taken for one), and
 * a replay puts in the key of the booking's current link.
 */
export function storedReplyLinks(db: Db, links: ManageLinks): StoredReplyFilter {
  // The code, the role, and `key=`.
  const rest = `([^?"\\\\]+)\\?role=(agent|customer)&key=`;
  const withKey = new RegExp(`${escapeRegExp(links.base(''))}${rest}([A-Za-z0-9_-]+)`, 'g');
  // Whatever PUBLIC_URL was when the reply was stored: no mark is left unfilled.
  const leftOut = new RegExp(`/manage-booking/${rest}${LEFT_OUT}`, 'g');

  async function bookingsNamed(body: string, pattern: RegExp) {
    const codes = new Set([...body.matchAll(pattern)].map((match) => decodedCode(match[1] as string)));
    return new Map((await linkedBookingsByCode(db, [...codes])).map((booking) => [booking.booking_code, booking]));
  }

  return {
    async store(body) {
      const bookings = await bookingsNamed(body, withKey);
      if (bookings.size === 0) return body;
      return body.replace(withKey, (link, code: string, role: ManageRole, key: string) => {
        const booking = bookings.get(decodedCode(code));
        return booking && links.matches(role, key, booking) ? `${link.slice(0, -key.length)}${LEFT_OUT}` : link;
      });
    },
    async replay(body) {
      if (!body.includes(LEFT_OUT)) return body;
      const bookings = await bookingsNamed(body, leftOut);
      return body.replace(leftOut, (link, code: string, role: ManageRole) => {
        const booking = bookings.get(decodedCode(code));
        // A booking deleted since: its link opens nothing, with a key or without.
        return `${link.slice(0, -LEFT_OUT.length)}${booking ? links.key(role, booking) : ''}`;
      });
    },
  };
}

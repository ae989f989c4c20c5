import { createHmac, timingSafeEqual } from 'node:crypto';

export type ManageRole = 'agent' | 'customer';

/** What a booking's manage links are made from: nothing of them is stored. */
export interface LinkedBooking {
  id: number;
  booking_code: string;
  /** Raised to revoke every link made before (manage-links/repository.ts). */
  manage_link_version: number;
}

/** 32 base64url characters: 192 bits of the HMAC, beyond guessing. */
const KEY_LENGTH = 32;

/**
 * The manage-booking links of bookings, each key an HMAC under the server's secret of the
 * booking's id, its link version and the role: a copy of the database holds no key, and neither
 * role's key leads to the other's.
 */
export class ManageLinks {
  constructor(
    private readonly publicUrl: string,
    private readonly secret: Buffer,
  ) {}

  /** The key in the role's link to the booking. */
  key(role: ManageRole, booking: Pick<LinkedBooking, 'id' | 'manage_link_version'>): string {
    return createHmac('sha256', this.secret)
      .update(`manage-booking:${booking.id}:${booking.manage_link_version}:${role}`)
      .digest('base64url')
      .slice(0, KEY_LENGTH);
  }

  /** The role's link to the booking. */
  url(role: ManageRole, booking: LinkedBooking): string {
    return `${this.base(booking.booking_code)}?role=${role}&key=${this.key(role, booking)}`;
  }

  /** The agent's and the customer's links to the booking. */
  of(booking: LinkedBooking): { agent: string; customer: string } {
    return { agent: this.url('agent', booking), customer: this.url('customer', booking) };
  }

  /** Whether `presented` is the key of the role's current link to the booking, compared in constant time. */
  matches(role: ManageRole, presented: string, booking: Pick<LinkedBooking, 'id' | 'manage_link_version'>): boolean {
    const given = Buffer.from(presented);
    const expected = Buffer.from(this.key(role, booking));
    // The length is no secret: every key has the same.
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Where a booking's links start: `PUBLIC_URL/manage-booking/CODE`. */
  base(code: string): string {
    return `${this.publicUrl}/manage-booking/${encodeURIComponent(code)}`;
  }
}

/**
 * The site context: the settings every request or transaction reads of the site (its timezone
 * above all), read once and passed down instead of being read again in each helper. The settings
 * module reads it; a request holds it as `request.site()`, read on first use.
 */

export interface SiteSettings {
  timezone: string;
  slot_interval_minutes: number;
  min_lead_minutes: number;
  /** How long before its start a customer may still cancel a booking through its manage link. */
  cancel_cutoff_minutes: number;
  /** How long before its start a customer may still reschedule a booking through its manage link. */
  reschedule_cutoff_minutes: number;
  max_advance_days: number;
  /** ISO 4217 code every amount is in (docs/money.md). */
  currency: string;
  /** How long before each booking's start its customer is reminded, largest first; empty: no reminders. */
  reminder_offsets_minutes: number[];
  /** Whether agents get a mail when a booking of theirs is made, moved or cancelled. */
  staff_notifications: boolean;
}

/** What a request or a transaction knows of the site, as read once. */
export type SiteContext = Readonly<SiteSettings>;

/** The site context of one request or transaction: read on the first call, at most once. */
export type Site = () => Promise<SiteContext>;

/** `read` made a Site: called on first use only, its answer (or failure) kept for later calls. */
export function siteOnce(read: () => Promise<SiteContext>): Site {
  let context: Promise<SiteContext> | undefined;
  return () => (context ??= read());
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The site context of this request: read on first call, at most once, never unless called. */
    site: Site;
  }
}

import { AppError } from '../../core/errors.js';
import type { SiteSettings } from '../../core/site.js';
import type { BookingStatus } from './table.js';

/**
 * What a customer may do to a booking through its manage link, and when. The site's cut-offs
 * bind the customer only: API keys change bookings at any time (the business overrides its own
 * policy), and the agent's link cancels as it always could.
 */
export type SelfServiceAction = 'cancel' | 'reschedule';

const MINUTE_MS = 60_000;

/** The statuses from which the manage link offers each action. */
export const SELF_SERVICE_STATUSES: Record<SelfServiceAction, readonly BookingStatus[]> = {
  cancel: ['pending', 'approved'],
  reschedule: ['pending', 'approved'],
};

const DONE: Record<SelfServiceAction, string> = { cancel: 'cancelled', reschedule: 'rescheduled' };

function minutesText(minutes: number): string {
  const [amount, unit]: [number, string] = minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/**
 * Why the customer may not `action` the booking through its manage link at `now`, or undefined
 * when they may: only from SELF_SERVICE_STATUSES, never once the booking has started, and not
 * later than the site's cut-off before its start.
 */
export function selfServiceRefusal(
  action: SelfServiceAction,
  booking: { status: BookingStatus; startAt: number },
  settings: Pick<SiteSettings, 'cancel_cutoff_minutes' | 'reschedule_cutoff_minutes'>,
  now: number,
): string | undefined {
  const done = DONE[action];
  if (!SELF_SERVICE_STATUSES[action].includes(booking.status)) return `A ${booking.status.replace('_', ' ')} booking cannot be ${done} here.`;
  if (now >= booking.startAt) return `The booking has started, so it can no longer be ${done} here.`;
  const cutoff = action === 'cancel' ? settings.cancel_cutoff_minutes : settings.reschedule_cutoff_minutes;
  if (now > booking.startAt - cutoff * MINUTE_MS) {
    return `A booking can be ${done} here until ${minutesText(cutoff)} before it starts; please contact us instead.`;
  }
  return undefined;
}

/** selfServiceRefusal as the refusal of a request: 422, naming the setting or the status. */
export function checkSelfService(...args: Parameters<typeof selfServiceRefusal>): void {
  const refusal = selfServiceRefusal(...args);
  if (refusal === undefined) return;
  const [action, booking] = args;
  const field = SELF_SERVICE_STATUSES[action].includes(booking.status) ? `${action}_cutoff_minutes` : 'status';
  throw new AppError('validation_failed', refusal, { [field]: refusal });
}

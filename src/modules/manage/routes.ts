import { randomBytes } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../core/actor.js';
import { Type, type Static } from 'typebox';
import type { App } from '../../core/app.js';
import { AppError } from '../../core/errors.js';
import { html, SafeHtml } from '../../lib/html.js';
import { isCalendarDate } from '../../lib/time.js';
import { freeStartsToMove } from '../availability/index.js';
import { bookingCalendar } from '../calendar-feeds/index.js';
import {
  bookingAccessByCode,
  type BookingView,
  loadDetail,
  SELF_SERVICE_STATUSES,
  selfServiceRefusal,
  type SelfServiceAction,
  TRANSITIONS,
  updateBooking,
} from '../bookings/index.js';
import type { ManageLinks, ManageRole } from '../manage-links/index.js';
import { getSettings, type SiteSettings } from '../settings/index.js';

/** A change made through a manage link acts as the link's role. */
function manageActor(request: FastifyRequest, role: ManageRole): Actor {
  return { source: { type: 'manage_link', role }, requestId: request.id };
}

/**
 * The pages behind a booking's manage links (manage_booking_for_agent and _for_customer): the
 * booking as its customer or agent sees it. The customer's may cancel it or move it to another
 * free time of the same service and agent, until the site's cut-offs before its start; the
 * agent's may cancel it whenever its status allows, as staff. The key in the link is the only
 * credential; a wrong one looks exactly like a booking that does not exist.
 */

/** How far ahead the customer's page offers other times. */
const RESCHEDULE_DAYS = 14;
/** A time to move to as the page's form sends it: "YYYY-MM-DD HH:MM". */
const SLOT_TEXT = /^(\d{4}-\d{2}-\d{2}) (([01]\d|2[0-3]):[0-5]\d)$/;

const Role = Type.Union([Type.Literal('agent'), Type.Literal('customer')]);
const Params = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) });
const Access = Type.Object({ role: Role, key: Type.String({ minLength: 1, maxLength: 200 }) });
type Access = Static<typeof Access>;
const Done = Type.Object({ done: Type.Optional(Type.Union([Type.Literal('cancelled'), Type.Literal('rescheduled')])) });
// `slot` is checked by the route rather than the schema: a form without a valid one asks for a
// move that is not possible, not for a booking that does not exist.
const MoveBody = Type.Intersect([Access, Type.Object({ slot: Type.Optional(Type.String({ maxLength: 100 })) })]);

const STYLE = `
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f5f6f8}
main{max-width:560px;margin:40px auto;padding:24px;background:#fff;border:1px solid #dde1e8;border-radius:8px}
h1{font-size:20px;margin:0 0 16px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0 0 20px}
dt{color:#5b6475}
dd{margin:0}
.notice{padding:10px 12px;border-radius:6px;background:#e7f6ec;margin:0 0 16px}
h2{font-size:16px;margin:20px 0 8px}
button{font:inherit;padding:8px 14px;border:1px solid #b42318;background:#fff;color:#b42318;border-radius:6px;cursor:pointer}
.refusal{color:#b42318;margin:0 0 12px}
select{font:inherit;padding:6px;margin:0 8px 8px 0}
.move button{border-color:#1d4ed8;color:#1d4ed8}
`;

function sendPage(reply: FastifyReply, status: number, title: string, body: SafeHtml): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .status(status)
    .header('content-security-policy', `default-src 'none'; style-src-elem 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(
      html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style nonce="${nonce}">${new SafeHtml(STYLE)}</style>
</head>
<body><main>${body}</main></body>
</html>
`.value,
    );
}

/** What the page offers: for the customer, each action with why it is refused, if it is. */
interface Offer {
  /** Why the customer may not cancel now; undefined when they may. */
  cancelRefusal: string | undefined;
  /** Why the customer may not reschedule now; undefined when they may. */
  rescheduleRefusal: string | undefined;
  /** Free starts ("YYYY-MM-DD HH:MM") to move to, by date. */
  startsByDate: Map<string, string[]>;
}

function hiddenAccess(access: Access): SafeHtml {
  return html`<input type="hidden" name="role" value="${access.role}"><input type="hidden" name="key" value="${access.key}">`;
}

function agentActions(booking: BookingView, access: Access): SafeHtml | string {
  const cancellable = TRANSITIONS[booking.status].includes('cancelled') && booking.status !== 'completed';
  return cancellable
    ? html`<form method="post" action="/manage-booking/${encodeURIComponent(booking.booking_code)}/cancel">
${hiddenAccess(access)}
<button type="submit">Cancel this booking</button>
</form>`
    : '';
}

function customerActions(booking: BookingView, access: Access, offer: Offer): SafeHtml {
  const code = encodeURIComponent(booking.booking_code);
  const offered = (action: SelfServiceAction) => SELF_SERVICE_STATUSES[action].includes(booking.status);
  const refusal = (id: string, text: string) => html`<p class="refusal" id="${id}">${text}</p>`;
  const cancel = !offered('cancel')
    ? ''
    : offer.cancelRefusal !== undefined
      ? refusal('cancel-refusal', offer.cancelRefusal)
      : html`<form method="post" action="/manage-booking/${code}/cancel">
${hiddenAccess(access)}
<button type="submit">Cancel this booking</button>
</form>`;
  let reschedule: SafeHtml | string = '';
  if (offered('reschedule')) {
    const options = [...offer.startsByDate].map(
      ([date, starts]) => html`<optgroup label="${date}">${starts.map((start) => html`<option value="${start}">${start}</option>`)}</optgroup>`,
    );
    reschedule = html`<h2>Reschedule</h2>
${offer.rescheduleRefusal !== undefined
  ? refusal('reschedule-refusal', offer.rescheduleRefusal)
  : options.length === 0
    ? html`<p id="no-free-times">There is no other free time with ${booking.agent.display_name} in the next ${RESCHEDULE_DAYS} days.</p>`
    : html`<form class="move" method="post" action="/manage-booking/${code}/reschedule">
${hiddenAccess(access)}
<label>New time <select name="slot">${options}</select></label>
<button type="submit">Move to this time</button>
</form>`}`;
  }
  return html`${cancel}${reschedule}`;
}

function bookingPage(booking: BookingView, access: Access, notice: string | undefined, offer: Offer | undefined): SafeHtml {
  const calendar = `/manage-booking/${encodeURIComponent(booking.booking_code)}/calendar.ics?${new URLSearchParams({ role: access.role, key: access.key }).toString()}`;
  return html`<h1>Booking ${booking.booking_code}</h1>
${notice ? html`<p class="notice">${notice}</p>` : ''}
<dl>
<dt>Service</dt><dd>${booking.service_name}</dd>
<dt>When</dt><dd>${booking.start_date} ${booking.start_time}–${booking.end_time} (${booking.timezone})</dd>
<dt>Status</dt><dd>${booking.status.replace('_', ' ')}</dd>
<dt>With</dt><dd>${booking.agent.display_name}</dd>
<dt>Where</dt><dd>${booking.location.name}${booking.location.full_address ? html`, ${booking.location.full_address}` : ''}</dd>
<dt>Customer</dt><dd>${booking.customer.full_name}</dd>
<dt>Price</dt><dd>${booking.price}</dd>
</dl>
<p><a id="calendar" href="${calendar}">Add to calendar (.ics)</a></p>
${offer ? customerActions(booking, access, offer) : agentActions(booking, access)}`;
}

/** What the customer's page offers now; the free times are looked up only while it may reschedule. */
async function offerOf(app: App, booking: BookingView, settings: SiteSettings): Promise<Offer> {
  const now = Date.now();
  const facts = { status: booking.status, startAt: Date.parse(booking.start_datetime) };
  const rescheduleRefusal = selfServiceRefusal('reschedule', facts, settings, now);
  const startsByDate = new Map<string, string[]>();
  if (rescheduleRefusal === undefined) {
    const toMove = { id: booking.id, serviceId: booking.service_id, agentId: booking.agent_id, locationId: booking.location_id, durationMinutes: booking.duration };
    for (const { date, time } of await freeStartsToMove(app.db, toMove, RESCHEDULE_DAYS)) {
      // Its own time is free to it, but moving there changes nothing.
      if (date === booking.start_date && time === booking.start_time) continue;
      const starts = startsByDate.get(date);
      if (starts) starts.push(`${date} ${time}`);
      else startsByDate.set(date, [`${date} ${time}`]);
    }
  }
  return { cancelRefusal: selfServiceRefusal('cancel', facts, settings, now), rescheduleRefusal, startsByDate };
}

const NOTICES = { cancelled: 'The booking is cancelled.', rescheduled: 'The booking is moved to its new time.' } as const;

const NOT_FOUND = html`<h1>Booking not found</h1><p>This link does not name a booking, or it is no longer valid.</p>`;

export default async function manageRoutes(app: App, options: { links: ManageLinks; publicUrl: string }): Promise<void> {
  await app.register(formbody);
  // The API takes an empty JSON body for none (http/json-body.ts); a form post without its fields
  // is a request not understood, answered like any other malformed one.
  app.addHook('preValidation', (request, _reply, done) => {
    done(request.method === 'POST' && request.body === undefined ? Object.assign(new Error('The form was sent without fields'), { statusCode: 400 }) : undefined);
  });

  /** The booking the link names, or undefined for an unknown code or a wrong key. */
  async function bookingFor(code: string, access: Access): Promise<BookingView | undefined> {
    const row = await bookingAccessByCode(app.db, code);
    if (!row || !options.links.matches(access.role, access.key, row)) return undefined;
    return loadDetail(app.db, row.id, options.links, (await getSettings(app.db)).currency);
  }

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof AppError) {
      // The API's text names the booking in the way, which is not the customer's to know.
      const message = error.code === 'time_slot_unavailable' ? 'That time is no longer free; please choose another.' : error.message;
      return sendPage(reply, 422, 'Booking', html`<h1>Not possible</h1><p>${message}</p>`);
    }
    if ((error as { validation?: unknown }).validation) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    // Fastify's own refusals of a body: malformed, too large, of a type no parser takes.
    const { statusCode } = error as { statusCode?: unknown };
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
      return sendPage(reply, statusCode, 'Request not understood', html`<h1>Request not understood</h1><p>Please use the button on the booking's page.</p>`);
    }
    request.log.error({ err: error }, 'manage-booking page failed');
    return sendPage(reply, 500, 'Error', html`<h1>Something went wrong</h1><p>Please try again later.</p>`);
  });

  app.get('/:code', { schema: { hide: true, params: Params, querystring: Type.Intersect([Access, Done]) } }, async (request, reply) => {
    const booking = await bookingFor(request.params.code, request.query);
    if (!booking) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    const notice = request.query.done === undefined ? undefined : NOTICES[request.query.done];
    const offer = request.query.role === 'customer' ? await offerOf(app, booking, await getSettings(app.db)) : undefined;
    return sendPage(reply, 200, `Booking ${booking.booking_code}`, bookingPage(booking, request.query, notice, offer));
  });

  app.get('/:code/calendar.ics', { schema: { hide: true, params: Params, querystring: Access } }, async (request, reply) => {
    const row = await bookingAccessByCode(app.db, request.params.code);
    const document =
      row && options.links.matches(request.query.role, request.query.key, row) ? await bookingCalendar(app.db, options.publicUrl, row.id, request.query.role) : undefined;
    if (document === undefined) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', 'attachment; filename="booking.ics"')
      .type('text/calendar; charset=utf-8')
      .send(document);
  });

  /** Back to the booking's page, saying what was done. */
  function done(reply: FastifyReply, booking: BookingView, access: Access, what: keyof typeof NOTICES): FastifyReply {
    const query = new URLSearchParams({ role: access.role, key: access.key, done: what });
    return reply.redirect(`/manage-booking/${encodeURIComponent(booking.booking_code)}?${query.toString()}`, 303);
  }

  app.post('/:code/cancel', { schema: { hide: true, params: Params, body: Access } }, async (request, reply) => {
    const booking = await bookingFor(request.params.code, request.body);
    if (!booking) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    if (booking.status !== 'cancelled') {
      // The customer is bound by the cut-off, checked again under the booking's lock; the agent is not.
      const selfService = request.body.role === 'customer' ? ('cancel' as const) : undefined;
      await updateBooking(app.db, manageActor(request, request.body.role), options.links, booking.id, { status: 'cancelled', customer: {}, sendNotification: true, selfService }, false);
    }
    return done(reply, booking, request.body, 'cancelled');
  });

  app.post('/:code/reschedule', { schema: { hide: true, params: Params, body: MoveBody } }, async (request, reply) => {
    const { slot, ...access } = request.body;
    const booking = await bookingFor(request.params.code, access);
    if (!booking) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    if (access.role !== 'customer') throw new AppError('forbidden', "The agent's link does not reschedule; change the booking through the API.");
    const [, startDate, startTime] = SLOT_TEXT.exec(slot ?? '') ?? [];
    if (startDate === undefined || startTime === undefined || !isCalendarDate(startDate)) {
      throw new AppError('invalid_request', 'Choose one of the times offered.', { slot: 'must be a date and time as YYYY-MM-DD HH:MM' });
    }
    // The same rules and locks as PUT /bookings/{id}, with the change notice it sends on request.
    await updateBooking(app.db, manageActor(request, access.role), options.links, booking.id, { startDate, startTime, customer: {}, sendNotification: true, selfService: 'reschedule' }, false);
    return done(reply, booking, access, 'rescheduled');
  });
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import type { App } from '../../core/app.js';
import { AppError } from '../../core/errors.js';
import { html, SafeHtml } from '../../lib/html.js';
import { bookingAccessByCode, type BookingView, loadDetail, TRANSITIONS, updateBooking } from '../bookings/index.js';
import { manageKey } from '../manage-links/index.js';

/**
 * The pages behind a booking's manage links (manage_booking_for_agent and _for_customer): the
 * booking as its customer or agent sees it, and a way to cancel it. The key in the link is the
 * only credential; a wrong one looks exactly like a booking that does not exist.
 */

const Role = Type.Union([Type.Literal('agent'), Type.Literal('customer')]);
const Params = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) });
const Access = Type.Object({ role: Role, key: Type.String({ minLength: 1, maxLength: 200 }) });
type Access = Static<typeof Access>;

const STYLE = `
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f5f6f8}
main{max-width:560px;margin:40px auto;padding:24px;background:#fff;border:1px solid #dde1e8;border-radius:8px}
h1{font-size:20px;margin:0 0 16px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0 0 20px}
dt{color:#5b6475}
dd{margin:0}
.notice{padding:10px 12px;border-radius:6px;background:#e7f6ec;margin:0 0 16px}
button{font:inherit;padding:8px 14px;border:1px solid #b42318;background:#fff;color:#b42318;border-radius:6px;cursor:pointer}
`;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether the request carries the key of its role's link, compared in constant time. */
function keyMatches(access: Access, accessKey: string): boolean {
  return timingSafeEqual(sha256(access.key), sha256(manageKey(access.role, accessKey)));
}

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

function bookingPage(booking: BookingView, access: Access, notice: string | undefined): SafeHtml {
  const cancellable = TRANSITIONS[booking.status].includes('cancelled') && booking.status !== 'completed';
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
${cancellable
  ? html`<form method="post" action="/manage-booking/${encodeURIComponent(booking.booking_code)}/cancel">
<input type="hidden" name="role" value="${access.role}"><input type="hidden" name="key" value="${access.key}">
<button type="submit">Cancel this booking</button>
</form>`
  : ''}`;
}

const NOT_FOUND = html`<h1>Booking not found</h1><p>This link does not name a booking, or it is no longer valid.</p>`;

export default async function manageRoutes(app: App, options: { publicUrl: string }): Promise<void> {
  await app.register(formbody);

  /** The booking the link names, or undefined for an unknown code or a wrong key. */
  async function bookingFor(code: string, access: Access): Promise<BookingView | undefined> {
    const row = await bookingAccessByCode(app.db, code);
    return row && keyMatches(access, row.access_key) ? loadDetail(app.db, row.id, options.publicUrl) : undefined;
  }

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof AppError) return sendPage(reply, 422, 'Booking', html`<h1>Not possible</h1><p>${error.message}</p>`);
    if ((error as { validation?: unknown }).validation) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    // Fastify's own refusals of a body: malformed, too large, of a type no parser takes.
    const { statusCode } = error as { statusCode?: unknown };
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
      return sendPage(reply, statusCode, 'Request not understood', html`<h1>Request not understood</h1><p>Please use the button on the booking's page.</p>`);
    }
    request.log.error({ err: error }, 'manage-booking page failed');
    return sendPage(reply, 500, 'Error', html`<h1>Something went wrong</h1><p>Please try again later.</p>`);
  });

  app.get('/:code', { schema: { hide: true, params: Params, querystring: Type.Intersect([Access, Type.Object({ done: Type.Optional(Type.Literal('cancelled')) })]) } }, async (request, reply) => {
    const booking = await bookingFor(request.params.code, request.query);
    if (!booking) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    const notice = request.query.done === 'cancelled' ? 'The booking is cancelled.' : undefined;
    return sendPage(reply, 200, `Booking ${booking.booking_code}`, bookingPage(booking, request.query, notice));
  });

  app.post('/:code/cancel', { schema: { hide: true, params: Params, body: Access } }, async (request, reply) => {
    const booking = await bookingFor(request.params.code, request.body);
    if (!booking) return sendPage(reply, 404, 'Booking not found', NOT_FOUND);
    if (booking.status !== 'cancelled') {
      await updateBooking(app.db, options.publicUrl, booking.id, { status: 'cancelled', customer: {}, sendNotification: true }, false);
    }
    const query = new URLSearchParams({ role: request.body.role, key: request.body.key, done: 'cancelled' });
    return reply.redirect(`/manage-booking/${encodeURIComponent(booking.booking_code)}?${query.toString()}`, 303);
  });
}

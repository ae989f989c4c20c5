import type { DateTime } from 'luxon';
import type { BookingDetails, CalendarAgent, CalendarBooking } from '../repository.js';
import { badge, href } from '../html.js';
import { html, type SafeHtml } from '../../../lib/html.js';
import { displayInstant } from '../service.js';
import { formatCents } from '../../../lib/money.js';

export interface CalendarView {
  view: 'day' | 'week';
  date: DateTime;
  days: DateTime[];
  agents: CalendarAgent[];
  bookings: CalendarBooking[];
  zone: string;
}

const STATUSES = ['pending', 'approved', 'completed', 'cancelled', 'no_show'] as const;

function minutes(time: string): number {
  const [h, m] = time.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

function label(b: CalendarBooking): string {
  return `${b.start_time}–${b.end_time} ${b.service_name} · ${b.customer_first_name} ${b.customer_last_name}`;
}

function bookingLink(b: CalendarBooking, style?: string): SafeHtml {
  return html`<a class="bk ${b.status}" href="/admin/bookings/${b.id}" title="${`${label(b)} (${b.status.replace('_', ' ')})`}" ${style ? html`style="${style}"` : ''}>${label(b)}</a>`;
}

/** Greedy lanes: each booking goes to the first lane whose last booking has ended. */
function lanes(bookings: readonly CalendarBooking[], endOf: (b: CalendarBooking) => number): CalendarBooking[][] {
  const result: CalendarBooking[][] = [];
  for (const b of bookings) {
    const lane = result.find((l) => endOf(l.at(-1)!) <= minutes(b.start_time));
    if (lane) lane.push(b);
    else result.push([b]);
  }
  return result;
}

function dayGrid(view: CalendarView): SafeHtml {
  const day = view.days[0]!.toISODate();
  const endOf = (b: CalendarBooking) => (b.end_date > b.start_date ? 24 * 60 : minutes(b.end_time));
  const first = Math.min(8 * 60, ...view.bookings.map((b) => minutes(b.start_time)));
  const last = Math.max(18 * 60, ...view.bookings.map(endOf));
  const startHour = Math.floor(first / 60);
  const endHour = Math.min(24, Math.ceil(last / 60));
  const span = (endHour - startHour) * 60;
  const hours = Array.from({ length: endHour - startHour + 1 }, (_, i) => startHour + i);

  return html`<table class="cal" id="calendar" data-view="day" data-date="${day}">
<thead><tr><th class="agent">Agent</th><th class="timeline"><div class="hours">${hours.map(
    (h, i) => html`<span style="left:${((i / (hours.length - 1)) * 100).toFixed(2)}%">${String(h).padStart(2, '0')}:00</span>`,
  )}</div></th></tr></thead>
<tbody>
${view.agents.map((agent) => {
  const mine = view.bookings.filter((b) => b.agent_id === agent.id);
  const rows = lanes(mine, endOf);
  return html`<tr data-agent-id="${agent.id}"><td class="agent">${agent.name}${agent.status !== 'active' ? html` <span class="muted">(${agent.status})</span>` : ''}</td>
<td>${(rows.length > 0 ? rows : [[]]).map(
    (lane) => html`<div class="lane" style="--hours:${endHour - startHour}">${lane.map((b) => {
      const left = ((minutes(b.start_time) - startHour * 60) / span) * 100;
      const width = Math.max(1.5, ((endOf(b) - minutes(b.start_time)) / span) * 100);
      return bookingLink(b, `left:${left.toFixed(2)}%;width:${width.toFixed(2)}%`);
    })}</div>`,
  )}</td></tr>`;
})}
</tbody>
</table>`;
}

function weekGrid(view: CalendarView): SafeHtml {
  return html`<table class="cal" id="calendar" data-view="week" data-date="${view.days[0]!.toISODate()}">
<thead><tr><th class="agent">Agent</th>${view.days.map(
    (d) => html`<th><a href="${href('/admin/calendar', { view: 'day', date: d.toISODate() ?? '' })}">${d.toFormat('ccc d LLL')}</a></th>`,
  )}</tr></thead>
<tbody>
${view.agents.map(
  (agent) => html`<tr data-agent-id="${agent.id}"><td class="agent">${agent.name}${agent.status !== 'active' ? html` <span class="muted">(${agent.status})</span>` : ''}</td>
${view.days.map((d) => {
  const date = d.toISODate();
  return html`<td>${view.bookings.filter((b) => b.agent_id === agent.id && b.start_date === date).map((b) => bookingLink(b))}</td>`;
})}</tr>`,
)}
</tbody>
</table>`;
}

export function calendarPage(view: CalendarView): SafeHtml {
  const step = view.view === 'day' ? { days: 1 } : { weeks: 1 };
  const nav = (d: DateTime, text: string) => html`<a href="${href('/admin/calendar', { view: view.view, date: d.toISODate() ?? '' })}">${text}</a>`;
  const title =
    view.view === 'day'
      ? view.date.toFormat('cccc, d LLLL yyyy')
      : `${view.days[0]!.toFormat('d LLL')} – ${view.days.at(-1)!.toFormat('d LLL yyyy')}`;
  return html`<h1>Calendar: ${title}</h1>
<form method="get" action="/admin/calendar" class="card row">
${nav(view.date.minus(step), view.view === 'day' ? '← Previous day' : '← Previous week')}
<label>Date <input type="date" name="date" value="${view.date.toISODate()}"></label>
<label>View <select name="view"><option value="day" ${view.view === 'day' ? 'selected' : ''}>Day</option><option value="week" ${view.view === 'week' ? 'selected' : ''}>Week</option></select></label>
<button type="submit">Show</button>
${nav(view.date.plus(step), view.view === 'day' ? 'Next day →' : 'Next week →')}
<span class="legend">${STATUSES.map((s) => html`<span class="bk ${s}">${s.replace('_', ' ')}</span>`)}</span>
</form>
${view.agents.length === 0 ? html`<p class="muted">No agents yet.</p>` : view.view === 'day' ? dayGrid(view) : weekGrid(view)}
<p class="muted">Local times of the site (${view.zone}). ${view.bookings.length} booking${view.bookings.length === 1 ? '' : 's'} in this ${view.view}.</p>`;
}

export function bookingPage(b: BookingDetails, meta: [string, string][], zone: string): SafeHtml {
  const agent = b.agent_display_name || `${b.agent_first_name} ${b.agent_last_name}`;
  const rows: [string, unknown][] = [
    ['Booking code', html`<code>${b.booking_code}</code>`],
    ['Status', badge(b.status)],
    ['Payment status', badge(b.payment_status)],
    ['Service', `${b.service_name} (#${b.service_id})`],
    ['Agent', `${agent} (#${b.agent_id})`],
    ['Location', `${b.location_name} (#${b.location_id})`],
    ['Customer', `${b.customer_first_name} ${b.customer_last_name} (#${b.customer_id}, ${b.customer_code})`],
    ['Customer email', b.customer_email ?? '—'],
    ['Customer phone', b.customer_phone ?? '—'],
    ['Start', `${b.start_date} ${b.start_time} (${b.timezone})`],
    ['End', `${b.end_date} ${b.end_time}`],
    ['Duration', `${b.duration} minutes`],
    ['Price', formatCents(b.price_cents)],
    ['Order', b.order_id === null ? '—' : `#${b.order_id}`],
    ['Notes', b.notes ?? '—'],
    ['Customer comment', b.customer_comment ?? '—'],
    ['Created', displayInstant(b.created_at, zone)],
    ['Updated', displayInstant(b.updated_at, zone)],
  ];
  return html`<h1>Booking #${b.id}</h1>
<p><a href="${href('/admin/calendar', { view: 'day', date: b.start_date })}">← Calendar of ${b.start_date}</a></p>
<div class="card"><dl class="details" id="booking">
${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}
</dl></div>
<h2>Metadata</h2>
${meta.length === 0
  ? html`<p class="muted">None.</p>`
  : html`<table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody>${meta.map(([k, v]) => html`<tr><td class="mono">${k}</td><td>${v}</td></tr>`)}</tbody></table>`}`;
}

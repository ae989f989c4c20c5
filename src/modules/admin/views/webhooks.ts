import { html, type SafeHtml } from '../../../lib/html.js';
import type { endpointsWithRecentDeliveries } from '../../webhooks/index.js';
import { badge, csrfField, notice } from '../html.js';
import { displayInstant } from '../service.js';

export interface WebhooksView {
  endpoints: Awaited<ReturnType<typeof endpointsWithRecentDeliveries>>;
  zone: string;
  csrf: string;
  message?: string;
}

export function webhooksPage(view: WebhooksView): SafeHtml {
  return html`<h1>Webhooks</h1>
${notice('ok', view.message)}
${view.endpoints.length === 0 ? html`<p class="muted">No endpoint. Subscribe one with <code>POST /booking-api/v1/webhooks</code>.</p>` : ''}
${view.endpoints.map(
  ({ endpoint: e, deliveries }) => html`<section class="card" data-webhook-id="${e.id}">
<h2>${e.url} ${badge(e.status)}</h2>
<p>${e.description ?? ''} <span class="muted">Events: ${e.event_types === null ? 'all' : e.event_types.join(', ')}</span></p>
${e.disabled_reason ? html`<p class="notice error">${e.disabled_reason}</p>` : ''}
<table>
<thead><tr><th>Created</th><th>Event</th><th>Status</th><th class="num">Attempts</th><th class="num">Last code</th><th>Next attempt / delivered</th><th>Last error</th><th></th></tr></thead>
<tbody>
${deliveries.length === 0 ? html`<tr><td colspan="8" class="muted">No delivery yet.</td></tr>` : ''}
${deliveries.map(
  (d) => html`<tr data-delivery-id="${d.id}"><td>${displayInstant(d.created_at, view.zone)}</td><td>${d.event_type}</td><td>${badge(d.status)}</td>
<td class="num">${d.attempts}</td><td class="num">${d.last_status_code ?? ''}</td>
<td>${d.status === 'succeeded' ? displayInstant(d.delivered_at, view.zone) : displayInstant(d.next_attempt_at, view.zone)}</td>
<td class="mono">${d.last_error ?? ''}</td>
<td><form method="post" action="/admin/webhooks/${e.id}/deliveries/${d.id}/retry">${csrfField(view.csrf)}<button type="submit">Retry</button></form></td></tr>`,
)}
</tbody>
</table>
</section>`,
)}
<p class="muted">Times in ${view.zone}. The latest 10 deliveries of each endpoint; a retry sends the delivery again at once.</p>`;
}

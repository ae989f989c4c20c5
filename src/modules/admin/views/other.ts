import { WEEKDAYS, type Weekday } from '../../schedules/index.js';
import { OUTBOX_STATUSES, type OutboxRow } from '../../mail/index.js';
import { badge, csrfField, href, notice, pager } from '../html.js';
import { html, type SafeHtml } from '../../../lib/html.js';
import { displayInstant } from '../service.js';

export interface SettingsFormValues {
  timezone: string;
  slot_interval_minutes: string;
  min_lead_minutes: string;
  weekly: Record<Weekday, string>;
}

export interface SettingsView {
  values: SettingsFormValues;
  /** Field name (or weekday) → what is wrong with it. */
  problems: Record<string, string>;
  timezones: readonly string[];
  exceptions: number;
  csrf: string;
  saved: boolean;
}

function problem(view: SettingsView, field: string): SafeHtml {
  const text = view.problems[field];
  return text ? html`<span class="notice error" style="padding:2px 8px;margin:0">${text}</span>` : html``;
}

export function settingsPage(view: SettingsView): SafeHtml {
  const v = view.values;
  const hasProblems = Object.keys(view.problems).length > 0;
  return html`<h1>Settings</h1>
${notice('ok', view.saved ? 'Settings saved.' : undefined)}
${notice('error', hasProblems ? 'Nothing was saved: correct the fields marked below.' : undefined)}
<form method="post" action="/admin/settings" id="settings">
${csrfField(view.csrf)}
<div class="card">
<h2 style="margin-top:0">Site</h2>
<div class="row">
<label>Timezone <select name="timezone">${view.timezones.map((z) => html`<option ${z === v.timezone ? 'selected' : ''}>${z}</option>`)}${
    view.timezones.includes(v.timezone) ? '' : html`<option selected>${v.timezone}</option>`
  }</select>${problem(view, 'timezone')}</label>
<label>Slot interval (minutes) <input name="slot_interval_minutes" inputmode="numeric" size="6" value="${v.slot_interval_minutes}">${problem(view, 'slot_interval_minutes')}</label>
<label>Minimum lead time (minutes) <input name="min_lead_minutes" inputmode="numeric" size="8" value="${v.min_lead_minutes}">${problem(view, 'min_lead_minutes')}</label>
</div>
</div>
<div class="card">
<h2 style="margin-top:0">Weekly hours</h2>
<p class="muted">Periods as HH:MM-HH:MM, separated by commas (e.g. 09:00-12:00, 13:00-17:00). Leave a day empty for a day off. Agents with hours of their own are not affected.${
    view.exceptions > 0 ? ` The site's ${view.exceptions} date exception(s) stay as they are.` : ''
  }</p>
<table>
${WEEKDAYS.map(
  (day) => html`<tr><th style="width:140px">${day[0]!.toUpperCase() + day.slice(1)}</th><td><input name="${day}" size="40" value="${v.weekly[day]}" placeholder="closed"> ${problem(view, day)}</td></tr>`,
)}
</table>
</div>
<button type="submit">Save settings</button>
</form>`;
}

export interface OutboxView {
  rows: OutboxRow[];
  status: string;
  page: number;
  totalPages: number;
  total: number;
  zone: string;
}

export function outboxPage(view: OutboxView): SafeHtml {
  return html`<h1>Outbox</h1>
<form method="get" action="/admin/outbox" class="card row">
<label>Status <select name="status"><option value="">any</option>${OUTBOX_STATUSES.map(
    (s) => html`<option value="${s}" ${view.status === s ? 'selected' : ''}>${s.replace('_', ' ')}</option>`,
  )}</select></label>
<button type="submit">Filter</button>
</form>
<table id="outbox">
<thead><tr><th>Created</th><th>Kind</th><th>To</th><th>Subject</th><th>Status</th><th class="num">Attempts</th><th>Next attempt / sent</th><th>Last error</th></tr></thead>
<tbody>
${view.rows.length === 0 ? html`<tr><td colspan="8" class="muted">No mail.</td></tr>` : ''}
${view.rows.map(
  (r) => html`<tr data-outbox-id="${r.id}"><td>${displayInstant(r.created_at, view.zone)}</td><td>${r.kind.replace('_', ' ')}</td><td>${r.recipient}</td><td>${r.subject}</td>
<td>${badge(r.status)}</td><td class="num">${r.attempts}</td>
<td>${r.status === 'sent' ? displayInstant(r.sent_at, view.zone) : r.status === 'pending' ? displayInstant(r.next_attempt_at, view.zone) : ''}</td>
<td class="mono">${r.last_error ?? ''}</td></tr>`,
)}
</tbody>
</table>
${pager('/admin/outbox', { status: view.status || undefined }, view.page, view.totalPages, view.total)}
<p class="muted">Times in ${view.zone}. Mail is retried with growing delays; after the last attempt it is marked failed.</p>`;
}

export function loginPage(options: { csrf: string; error?: string; passwordSet: boolean }): SafeHtml {
  if (!options.passwordSet) {
    return html`<div class="login card"><h1>Booking admin</h1>
<p>No admin password is set yet. Set one on the server with</p>
<p><code>npx booking admin-password set</code></p>
<p class="muted">(it reads the password from standard input), then reload this page.</p></div>`;
  }
  return html`<div class="login card"><h1>Sign in</h1>
${notice('error', options.error)}
<form method="post" action="/admin/login">
<input type="hidden" name="_csrf" value="${options.csrf}">
<label>Password <input type="password" name="password" required autofocus autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form></div>`;
}

export function messagePage(title: string, message: string): SafeHtml {
  return html`<h1>${title}</h1><p>${message}</p><p><a href="${href('/admin/keys')}">Back to the admin page</a></p>`;
}

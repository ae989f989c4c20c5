import { PERMISSIONS, type ApiKey } from '../../../core/access.js';
import { DEFAULT_LIMITS } from '../../api-keys/index.js';
import { displayInstant } from '../service.js';
import { badge, csrfField, notice } from '../html.js';
import { html, type SafeHtml } from '../../../lib/html.js';

export interface KeyFormValues {
  name: string;
  type: 'test' | 'live';
  permissions: string[];
  per_minute: string;
  per_hour: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = { name: '', type: 'test', permissions: ['*'], per_minute: '', per_hour: '' };

export interface KeysView {
  keys: ApiKey[];
  requests24h: Map<number, number>;
  zone: string;
  csrf: string;
  form: KeyFormValues;
  created?: ApiKey & { key: string };
  error?: string;
  message?: string;
}

function createdNotice(created: ApiKey & { key: string }): SafeHtml {
  return html`<div class="notice ok" role="status" id="new-key">
<strong>Key “${created.name}” created.</strong> Copy it now: this is the only time it is shown.
<div class="secret"><code id="new-key-value">${created.key}</code><button type="button" class="secondary" data-copy="new-key-value">Copy</button></div>
</div>`;
}

function createForm(view: KeysView): SafeHtml {
  const f = view.form;
  const checked = (p: string) => f.permissions.includes(p);
  return html`<form method="post" action="/admin/keys" class="card" id="create-key">
${csrfField(view.csrf)}
<h2 style="margin-top:0">Create a key</h2>
<div class="row">
<label>Name <input name="name" required maxlength="100" value="${f.name}" placeholder="e.g. Website booking widget"></label>
<label>Type <select name="type">
<option value="test" ${f.type === 'test' ? 'selected' : ''}>test (development, ${DEFAULT_LIMITS.test.perMinute}/min, ${DEFAULT_LIMITS.test.perHour}/h)</option>
<option value="live" ${f.type === 'live' ? 'selected' : ''}>live (${DEFAULT_LIMITS.live.perMinute}/min, ${DEFAULT_LIMITS.live.perHour}/h)</option>
</select></label>
<label>Requests per minute <input name="per_minute" inputmode="numeric" size="8" value="${f.per_minute}" placeholder="type default"></label>
<label>Requests per hour <input name="per_hour" inputmode="numeric" size="8" value="${f.per_hour}" placeholder="type default"></label>
</div>
<div class="perms">
<label class="check"><input type="checkbox" name="permissions" value="*" ${checked('*') ? 'checked' : ''}> <strong>all permissions (*)</strong></label>
${PERMISSIONS.map((p) => html`<label class="check"><input type="checkbox" name="permissions" value="${p}" ${checked(p) ? 'checked' : ''}> ${p}</label>`)}
</div>
<button type="submit">Create key</button>
</form>`;
}

export function keysPage(view: KeysView): SafeHtml {
  return html`<h1>API keys</h1>
${view.created ? createdNotice(view.created) : ''}
${notice('ok', view.message)}
${notice('error', view.error)}
${createForm(view)}
<h2>Keys</h2>
<table id="keys">
<thead><tr><th>Name</th><th>Type</th><th>Prefix</th><th>Permissions</th><th>Status</th><th>Limits</th><th>Created</th><th>Last used</th><th class="num">Requests (24 h)</th><th></th></tr></thead>
<tbody>
${view.keys.length === 0 ? html`<tr><td colspan="10" class="muted">No keys yet.</td></tr>` : ''}
${view.keys.map(
  (k) => html`<tr data-key-id="${k.id}">
<td>${k.name}</td><td>${k.type}</td><td><code>${k.prefix}…</code></td>
<td class="mono">${k.permissions.join(', ')}</td>
<td>${badge(k.status)}</td>
<td>${k.per_minute}/min, ${k.per_hour}/h</td>
<td>${displayInstant(k.created_at, view.zone)}</td>
<td>${k.last_used_at ? displayInstant(k.last_used_at, view.zone) : html`<span class="muted">never</span>`}</td>
<td class="num"><a href="/admin/log?key=${k.id}">${view.requests24h.get(k.id) ?? 0}</a></td>
<td>${
    k.status === 'active'
      ? html`<form method="post" action="/admin/keys/${k.id}/revoke" data-confirm="${`Revoke “${k.name}”? Clients using it are refused from the next request on.`}">${csrfField(view.csrf)}<button type="submit" class="danger">Revoke</button></form>`
      : ''
  }</td>
</tr>`,
)}
</tbody>
</table>
<p class="muted">Times in ${view.zone}. A revoked key stays listed as inactive; it cannot be reactivated.</p>`;
}

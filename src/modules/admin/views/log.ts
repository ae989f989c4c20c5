import type { ApiKey } from '../../../core/access.js';
import type { AuditEntry } from '../../audit/index.js';
import { badge, pager } from '../html.js';
import { html, type SafeHtml } from '../../../lib/html.js';
import { displayInstant, type UsageChart } from '../service.js';

export interface LogFilterValues {
  key: string;
  status: string;
  path: string;
  from: string;
  to: string;
}

export interface LogView {
  filter: LogFilterValues;
  keys: ApiKey[];
  entries: AuditEntry[];
  page: number;
  totalPages: number;
  total: number;
  chart: UsageChart;
  zone: string;
}

const COLOURS = ['#2f6fde', '#e07b00', '#2f9e4f', '#c93c3c', '#7a4fd0', '#0f9bb0', '#b0407f', '#6b7386', '#9a8a00', '#3c4a6b'];
const MAX_SERIES = COLOURS.length;

function keyName(keys: readonly ApiKey[], id: number | null): string {
  if (id === null) return 'no valid key';
  const key = keys.find((k) => k.id === id);
  return key ? `${key.name} (#${id})` : `key #${id}`;
}

function filterForm(view: LogView): SafeHtml {
  const f = view.filter;
  return html`<form method="get" action="/admin/log" class="card row" id="log-filter">
<label>Key <select name="key">
<option value="">any</option>
<option value="none" ${f.key === 'none' ? 'selected' : ''}>no valid key</option>
${view.keys.map((k) => html`<option value="${k.id}" ${f.key === String(k.id) ? 'selected' : ''}>${k.name} (#${k.id}, ${k.status})</option>`)}
</select></label>
<label>Status <select name="status">
<option value="">any</option>
${['2xx', '3xx', '4xx', '5xx'].map((s) => html`<option value="${s}" ${f.status === s ? 'selected' : ''}>${s}</option>`)}
</select></label>
<label>Path contains <input name="path" value="${f.path}" maxlength="200" placeholder="/bookings"></label>
<label>From (${view.zone}) <input type="datetime-local" name="from" value="${f.from}"></label>
<label>To <input type="datetime-local" name="to" value="${f.to}"></label>
<button type="submit">Filter</button>
<a href="/admin/log">Reset</a>
</form>`;
}

/** Requests per key over time as an SVG line chart; keys beyond the busiest ten are summed as "others". */
export function usageSvg(chart: UsageChart, keys: readonly ApiKey[]): SafeHtml {
  const width = 1000;
  const height = 220;
  const left = 44;
  const right = 24;
  const top = 12;
  const bottom = 28;
  const plotW = width - left - right;
  const plotH = height - top - bottom;

  let series = chart.series.map((s, i) => ({ label: keyName(keys, s.keyId), counts: s.counts, total: s.total, colour: COLOURS[i % COLOURS.length]! }));
  if (series.length > MAX_SERIES) {
    const others = series.slice(MAX_SERIES - 1);
    series = series.slice(0, MAX_SERIES - 1);
    series.push({
      label: `${others.length} other keys`,
      counts: chart.buckets.map((_, i) => others.reduce((sum, s) => sum + (s.counts[i] ?? 0), 0)),
      total: others.reduce((sum, s) => sum + s.total, 0),
      colour: COLOURS[MAX_SERIES - 1]!,
    });
  }
  const max = Math.max(1, ...series.flatMap((s) => s.counts));
  const n = chart.buckets.length;
  const x = (i: number) => left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const labelEvery = Math.max(1, Math.ceil(n / 12));
  const format = chart.unit === 'hour' ? 'HH:mm' : 'LLL d';
  const ticks = [0, Math.round(max / 2), max].filter((v, i, all) => all.indexOf(v) === i);

  return html`<div class="chart" id="usage-chart">
<svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="Requests per key per ${chart.unit}">
${ticks.map(
  (v) => html`<line x1="${left}" x2="${width - right}" y1="${y(v)}" y2="${y(v)}" stroke="#e7e9ee"/><text x="${left - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end" fill="#6b7386">${v}</text>`,
)}
${chart.buckets.map((b, i) =>
  i % labelEvery === 0 ? html`<text x="${x(i)}" y="${height - 8}" font-size="11" text-anchor="middle" fill="#6b7386">${b.toFormat(format)}</text>` : '',
)}
${series.map(
  (s) => html`<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${s.counts.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"><title>${s.label}</title></polyline>`,
)}
</svg>
<div class="legend">${
    series.length === 0
      ? html`<span class="muted">No requests in this range.</span>`
      : series.map((s) => html`<span><i style="background:${s.colour}"></i>${s.label}: ${s.total}</span>`)
  }</div>
</div>`;
}

export function logPage(view: LogView): SafeHtml {
  const first = view.chart.buckets[0];
  const last = view.chart.buckets.at(-1);
  return html`<h1>Request log</h1>
${filterForm(view)}
<h2>Usage per key${first && last ? html` <span class="muted">(${first.toFormat('yyyy-MM-dd HH:mm')} to ${last.toFormat('yyyy-MM-dd HH:mm')}, per ${view.chart.unit})</span>` : ''}</h2>
${usageSvg(view.chart, view.keys)}
<h2>Requests</h2>
<table id="log">
<thead><tr><th>Time (${view.zone})</th><th>Key</th><th>Method</th><th>Path</th><th>Status</th><th>IP</th><th class="num">ms</th></tr></thead>
<tbody>
${view.entries.length === 0 ? html`<tr><td colspan="7" class="muted">No requests match.</td></tr>` : ''}
${view.entries.map(
  (e) => html`<tr><td>${displayInstant(e.at, view.zone)}</td><td>${keyName(view.keys, e.key_id)}</td><td>${e.method}</td><td class="mono">${e.path}</td><td>${badge(String(e.status), `s${Math.floor(e.status / 100)}`)}</td><td class="mono">${e.ip}</td><td class="num">${e.duration_ms.toFixed(1)}</td></tr>`,
)}
</tbody>
</table>
${pager('/admin/log', { ...view.filter }, view.page, view.totalPages, view.total)}`;
}

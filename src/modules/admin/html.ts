import { html, SafeHtml } from '../../lib/html.js';

/** A link target with a query string; values are URL-encoded (and escaped where interpolated). */
export function href(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export const NAV = [
  { path: '/admin/keys', label: 'API keys' },
  { path: '/admin/log', label: 'Request log' },
  { path: '/admin/calendar', label: 'Calendar' },
  { path: '/admin/settings', label: 'Settings' },
  { path: '/admin/outbox', label: 'Outbox' },
  { path: '/admin/webhooks', label: 'Webhooks' },
] as const;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f5f6f8}
header{display:flex;align-items:center;gap:24px;padding:0 24px;background:#1f2a44;color:#fff}
header .brand{font-weight:600;padding:14px 0}
header nav{display:flex;gap:4px;flex:1}
header nav a{color:#cdd5e6;text-decoration:none;padding:14px 10px;border-bottom:3px solid transparent}
header nav a.active,header nav a:hover{color:#fff;border-bottom-color:#6ea8fe}
header form{margin:0}
main{padding:20px 24px;max-width:1400px}
h1{font-size:20px;margin:0 0 16px}
h2{font-size:16px;margin:24px 0 10px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e8}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #e7e9ee;vertical-align:top}
th{background:#eef1f6;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
.card{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:16px;margin-bottom:16px}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end}
label{display:flex;flex-direction:column;gap:3px;font-size:12.5px;color:#4a5266}
label.check{flex-direction:row;align-items:center;gap:6px;color:#1d2330;font-size:13px}
input,select,button{font:inherit;padding:5px 8px;border:1px solid #c3c9d5;border-radius:4px;background:#fff}
button{cursor:pointer;background:#2f6fde;border-color:#2f6fde;color:#fff}
button.secondary{background:#fff;color:#1d2330;border-color:#c3c9d5}
button.danger{background:#c93c3c;border-color:#c93c3c}
header button{background:transparent;border-color:#6b7799;color:#fff}
.perms{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:4px 12px;margin:10px 0}
.notice{padding:10px 14px;border-radius:5px;margin-bottom:16px}
.notice.ok{background:#e3f4e6;border:1px solid #9fd3a9}
.notice.error{background:#fbe6e6;border:1px solid #e8a3a3}
.secret{display:flex;gap:8px;align-items:center;margin-top:8px}
.secret code{background:#fff;border:1px solid #9fd3a9;padding:6px 10px;border-radius:4px;font-size:14px;user-select:all}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;background:#e7e9ee}
.badge.active,.badge.sent,.badge.approved,.badge.s2{background:#dff3e3;color:#1d6b30}
.badge.inactive,.badge.failed,.badge.cancelled,.badge.s5{background:#fbe1e1;color:#9b2525}
.badge.pending,.badge.s4{background:#fff1d6;color:#8a5a00}
.badge.not_delivered,.badge.no_show,.badge.s3{background:#ececf4;color:#4a4f6a}
.badge.completed{background:#dde9fb;color:#1d4f9b}
.pager{display:flex;gap:12px;align-items:center;margin:12px 0}
.muted{color:#6b7386}
.chart{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:8px}
.legend{display:flex;flex-wrap:wrap;gap:14px;font-size:12.5px;margin:4px 8px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.cal{width:100%;border-collapse:collapse;table-layout:fixed}
.cal th.agent,.cal td.agent{width:170px}
.cal td{height:44px;padding:4px}
.lane{position:relative;height:54px;background:repeating-linear-gradient(90deg,#fff 0,#fff calc(100%/var(--hours) - 1px),#e7e9ee calc(100%/var(--hours) - 1px),#e7e9ee calc(100%/var(--hours)))}
.lane a{position:absolute;top:4px;bottom:4px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.bk{display:block;border-radius:4px;padding:3px 6px;font-size:12px;text-decoration:none;color:#1d2330;border-left:4px solid;margin-bottom:3px}
.bk.pending{background:#fff1d6;border-color:#e0a100}
.bk.approved{background:#dff3e3;border-color:#2f9e4f}
.bk.completed{background:#dde9fb;border-color:#2f6fde}
.bk.cancelled{background:#f3e3e3;border-color:#c93c3c;text-decoration:line-through}
.bk.no_show{background:#ececf4;border-color:#7a7f99}
.cal th.timeline{padding:6px 4px}
.hours{position:relative;height:16px;font-size:11px;color:#6b7386;font-weight:400}
.hours span{position:absolute;transform:translateX(-50%)}
.hours span:first-child{transform:none}
.hours span:last-child{transform:translateX(-100%)}
dl.details{display:grid;grid-template-columns:200px 1fr;gap:6px 16px;margin:0}
dl.details dt{color:#4a5266}
dl.details dd{margin:0}
.login{max-width:360px;margin:80px auto}
.login form{display:flex;flex-direction:column;gap:12px}
`;

export interface PageOptions {
  title: string;
  /** The NAV path of the page, to highlight; absent on the login page. */
  active?: string;
  /** The session's CSRF token; absent when signed out. */
  csrf?: string;
  nonce: string;
  body: SafeHtml;
}

/** The frame every admin page shares. The one inline script runs under the page's CSP nonce. */
export function page(options: PageOptions): string {
  const signedIn = options.csrf !== undefined;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Booking admin</title>
<style nonce="${options.nonce}">${new SafeHtml(STYLE)}</style>
</head>
<body>
<header>
<div class="brand">Booking admin</div>
${signedIn
  ? html`<nav>${NAV.map((n) => html`<a href="${n.path}" class="${n.path === options.active ? 'active' : ''}">${n.label}</a>`)}</nav>
<form method="post" action="/admin/logout"><input type="hidden" name="_csrf" value="${options.csrf}"><button type="submit">Sign out</button></form>`
  : ''}
</header>
<main>
${options.body}
</main>
<script nonce="${options.nonce}">${new SafeHtml(SCRIPT)}</script>
</body>
</html>
`.value;
}

// Confirmation before destructive forms, copy-to-clipboard for a new key, and filter selects
// that submit on change. Everything works without it.
const SCRIPT = `
document.addEventListener('submit', function (e) {
  var message = e.target.getAttribute('data-confirm');
  if (message && !window.confirm(message)) e.preventDefault();
});
document.addEventListener('click', function (e) {
  var target = e.target.closest('[data-copy]');
  if (!target) return;
  var text = document.getElementById(target.getAttribute('data-copy')).textContent;
  navigator.clipboard.writeText(text).then(function () { target.textContent = 'Copied'; });
});
`;

export function badge(value: string, cls: string = value): SafeHtml {
  return html`<span class="badge ${cls}">${value.replace(/_/g, ' ')}</span>`;
}

export function notice(kind: 'ok' | 'error', message: string | undefined): SafeHtml {
  return message ? html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>` : html``;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** "Page 2 of 7" with previous/next links that keep the other query parameters. */
export function pager(path: string, query: Record<string, string | number | undefined>, pageNumber: number, totalPages: number, total: number): SafeHtml {
  const link = (n: number, label: string, enabled: boolean) =>
    enabled ? html`<a href="${href(path, { ...query, page: n })}">${label}</a>` : html`<span class="muted">${label}</span>`;
  return html`<div class="pager">${link(pageNumber - 1, '← Newer', pageNumber > 1)}<span>Page ${pageNumber} of ${Math.max(1, totalPages)} · ${total} in all</span>${link(pageNumber + 1, 'Older →', pageNumber < totalPages)}</div>`;
}

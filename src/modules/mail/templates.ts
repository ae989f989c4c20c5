import { DateTime } from 'luxon';
import { escapeHtml } from '../../lib/html.js';
import type { MailKind } from './table.js';

/**
 * What the templates read from an outbox row's payload. Every field is optional: a mail renders
 * whatever it was given and leaves out lines it has nothing for, so a producer that adds or
 * misses a field never breaks delivery.
 *
 * Mail about a booking (booking_* to its customer, staff_booking_* to its agent):
 *   recipient_name, customer_name, booking_code, service_name, agent_name, location_name,
 *   location_address, start_date (YYYY-MM-DD), start_time and end_time (HH:MM, local),
 *   timezone (IANA name), status, price (money string such as "45.00") and currency, manage_url;
 *   staff mail also customer_email and customer_phone; change notices also `changes`: lines
 *   saying what changed ("Time: 10:00 → 11:00").
 *   manage_url is never stored (its key is a secret): the sender makes it from booking_id,
 *   booking_code, manage_link_version and manage_role. starts_at, ends_at (UTC instants) and
 *   calendar_sequence make the calendar part (mail/calendar.ts).
 * customer_welcome:
 *   customer_name, customer_code, email.
 * booking_id and customer_id name the record for whoever reads the outbox; no template shows them.
 */
export interface MailPayload {
  booking_id?: number;
  manage_link_version?: number;
  customer_id?: number;
  recipient_name?: string;
  customer_name?: string;
  customer_email?: string;
  customer_phone?: string;
  customer_code?: string;
  email?: string;
  booking_code?: string;
  service_name?: string;
  agent_name?: string;
  location_name?: string;
  location_address?: string;
  start_date?: string;
  start_time?: string;
  end_time?: string;
  timezone?: string;
  status?: string;
  price?: string;
  /** ISO 4217 code of price (the site's currency setting). */
  currency?: string;
  manage_url?: string;
  manage_role?: 'customer' | 'agent';
  starts_at?: string;
  ends_at?: string;
  calendar_sequence?: number;
  changes?: string[];
}

export interface RenderedMail {
  text: string;
  html: string;
}

const STRING_FIELDS = [
  'recipient_name',
  'customer_name',
  'customer_email',
  'customer_phone',
  'customer_code',
  'email',
  'booking_code',
  'service_name',
  'agent_name',
  'location_name',
  'location_address',
  'start_date',
  'start_time',
  'end_time',
  'timezone',
  'status',
  'price',
  'currency',
  'starts_at',
  'ends_at',
] as const;
const INTEGER_FIELDS = ['booking_id', 'manage_link_version', 'calendar_sequence'] as const;

/** Reads the fields the templates know from a stored payload; anything else is ignored. */
export function parsePayload(json: string): MailPayload {
  const raw: unknown = JSON.parse(json);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new TypeError('mail payload is not a JSON object');
  const source = raw as Record<string, unknown>;
  const payload: MailPayload = {};
  for (const field of STRING_FIELDS) {
    const value = source[field];
    if ((typeof value === 'string' && value.trim() !== '') || typeof value === 'number') payload[field] = String(value).trim();
  }
  for (const field of INTEGER_FIELDS) {
    const value = source[field];
    if (Number.isSafeInteger(value)) payload[field] = value as number;
  }
  if (source.manage_role === 'customer' || source.manage_role === 'agent') payload.manage_role = source.manage_role;
  if (Array.isArray(source.changes)) {
    payload.changes = source.changes.filter((c): c is string => typeof c === 'string' && c.trim() !== '');
  }
  return payload;
}

/** "Monday, 7 January 2030" for a valid YYYY-MM-DD; anything else as given. */
function longDate(date: string): string {
  const parsed = DateTime.fromISO(date, { zone: 'UTC' });
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && parsed.isValid ? parsed.toFormat('cccc, d LLLL yyyy') : date;
}

function when(p: MailPayload): string | undefined {
  if (!p.start_date && !p.start_time) return undefined;
  const time = p.start_time && p.end_time ? `${p.start_time}–${p.end_time}` : p.start_time;
  const parts = [p.start_date ? longDate(p.start_date) : undefined, time].filter(Boolean).join(', ');
  return p.timezone ? `${parts} (${p.timezone})` : parts;
}

interface Body {
  intro: string[];
  facts: [label: string, value: string | undefined][];
  list?: { title: string; items: string[] };
  link?: { label: string; url: string };
  outro: string[];
}

function bookingFacts(p: MailPayload): Body['facts'] {
  return [
    ['Booking', p.booking_code],
    ['Service', p.service_name],
    ['When', when(p)],
    ['With', p.agent_name],
    ['Where', p.location_name],
    ['Address', p.location_address],
    ['Status', p.status],
    ['Price', p.price && p.currency ? `${p.price} ${p.currency}` : p.price],
  ];
}

/** What the agent is told: who is coming rather than with whom. */
function staffFacts(p: MailPayload): Body['facts'] {
  return [
    ['Booking', p.booking_code],
    ['Service', p.service_name],
    ['When', when(p)],
    ['Customer', p.customer_name],
    ['Email', p.customer_email],
    ['Phone', p.customer_phone],
    ['Where', p.location_name],
    ['Address', p.location_address],
    ['Status', p.status],
    ['Price', p.price && p.currency ? `${p.price} ${p.currency}` : p.price],
  ];
}

function changeList(p: MailPayload): Pick<Body, 'list'> {
  return p.changes && p.changes.length > 0 ? { list: { title: 'What changed', items: p.changes } } : {};
}

function manageLink(p: MailPayload, label: string): Pick<Body, 'link'> {
  return p.manage_url ? { link: { label, url: p.manage_url } } : {};
}

function bodyOf(kind: MailKind, p: MailPayload): Body {
  switch (kind) {
    case 'booking_confirmation':
      return {
        intro: [p.status === 'pending' ? 'We have received your booking; it awaits confirmation. Here are the details:' : 'Your booking is confirmed. Here are the details:'],
        facts: bookingFacts(p),
        ...manageLink(p, 'View or change your booking'),
        outro: ['We look forward to seeing you.'],
      };
    case 'booking_change':
      return {
        intro: ['Your booking has changed. This is how it stands now:'],
        facts: bookingFacts(p),
        ...changeList(p),
        ...manageLink(p, 'View your booking'),
        outro: ['If you did not expect this change, please get in touch with us.'],
      };
    case 'booking_cancellation':
      return {
        intro: ['Your booking has been cancelled. This was the appointment:'],
        facts: bookingFacts(p),
        ...manageLink(p, 'View your booking'),
        outro: ['If you did not expect this, please get in touch with us. We hope to see you another time.'],
      };
    case 'booking_reminder':
      return {
        intro: ['A reminder of your appointment:'],
        facts: bookingFacts(p),
        ...manageLink(p, 'View or change your booking'),
        outro: ['We look forward to seeing you.'],
      };
    case 'staff_booking_created':
      return { intro: ['You have a new booking:'], facts: staffFacts(p), ...manageLink(p, 'Open the booking'), outro: [] };
    case 'staff_booking_changed':
      return { intro: ['A booking of yours has changed. This is how it stands now:'], facts: staffFacts(p), ...changeList(p), ...manageLink(p, 'Open the booking'), outro: [] };
    case 'staff_booking_cancelled':
      return { intro: ['A booking of yours has been cancelled; the time is free again. This was the appointment:'], facts: staffFacts(p), ...manageLink(p, 'Open the booking'), outro: [] };
    case 'customer_welcome':
      return {
        intro: ['Welcome! Your customer account has been created.'],
        facts: [
          ['Customer number', p.customer_code],
          ['Email', p.email],
        ],
        outro: ['You can now book appointments with us.'],
      };
    default:
      // The column is text: a row written by something newer than this code can hold another kind.
      throw new TypeError(`unknown mail kind "${String(kind)}"`);
  }
}

function greeting(p: MailPayload): string {
  const name = p.recipient_name ?? p.customer_name;
  return name ? `Hello ${name},` : 'Hello,';
}

/** The plain-text and HTML bodies of one mail; every payload value is escaped in the HTML. */
export function renderMail(kind: MailKind, payload: MailPayload): RenderedMail {
  const body = bodyOf(kind, payload);
  const facts = body.facts.filter((f): f is [string, string] => f[1] !== undefined);
  const width = Math.max(0, ...facts.map(([label]) => label.length));

  const text = [
    greeting(payload),
    '',
    ...body.intro,
    ...(facts.length > 0 ? ['', ...facts.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`)] : []),
    ...(body.list ? ['', `${body.list.title}:`, ...body.list.items.map((item) => `- ${item}`)] : []),
    ...(body.link ? ['', `${body.link.label}: ${body.link.url}`] : []),
    '',
    ...body.outro,
    '',
  ].join('\n');

  const e = escapeHtml;
  // Inline styles and a table layout: what mail clients render alike.
  const html = [
    '<!doctype html><html><body style="margin:0;padding:24px 12px;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif;color:#1d2330;line-height:1.5">',
    '<table role="presentation" style="max-width:560px;width:100%;margin:0 auto;background:#ffffff;border:1px solid #dde1e8;border-radius:8px;border-collapse:separate"><tr><td style="padding:24px 28px">',
    `<p style="margin:0 0 12px">${e(greeting(payload))}</p>`,
    ...body.intro.map((line) => `<p style="margin:0 0 16px">${e(line)}</p>`),
    facts.length > 0
      ? `<table style="border-collapse:collapse;margin:0 0 16px">${facts
          .map(([label, value]) => `<tr><th style="text-align:left;vertical-align:top;padding:3px 16px 3px 0;color:#5b6475;font-weight:normal">${e(label)}</th><td style="padding:3px 0">${e(value)}</td></tr>`)
          .join('')}</table>`
      : '',
    body.list ? `<p style="margin:0 0 4px">${e(body.list.title)}:</p><ul style="margin:0 0 16px">${body.list.items.map((item) => `<li>${e(item)}</li>`).join('')}</ul>` : '',
    body.link && /^https?:\/\//i.test(body.link.url)
      ? `<p style="margin:0 0 16px"><a href="${e(body.link.url)}" style="display:inline-block;padding:9px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${e(body.link.label)}</a></p>`
      : '',
    ...body.outro.map((line) => `<p style="margin:0 0 8px">${e(line)}</p>`),
    '</td></tr></table></body></html>',
  ].join('');

  return { text, html };
}

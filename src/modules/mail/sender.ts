import nodemailer from 'nodemailer';
import { errorText, exponentialBackoff, type JobOutcome, type JobQueue } from '../jobs/index.js';
import type { LinkedBooking, ManageRole } from '../manage-links/index.js';
import { calendarPart, mailbox } from './calendar.js';
import type { OutboxRow } from './repository.js';
import { parsePayload, renderMail, type MailPayload } from './templates.js';

export interface MailQueueOptions {
  /** smtp:// or smtps:// URL; without it every due mail is marked not_delivered. */
  smtpUrl: string | undefined;
  from: string;
  /** A manage link of a booking (the recipient's role's), put in mail about it as it is sent. */
  manageUrl?: (role: ManageRole, booking: LinkedBooking) => string;
  /** Names the host in the UID of each booking's calendar entry. */
  publicUrl: string;
  /** Attempts before a mail is marked failed. */
  maxAttempts?: number;
  /** Wait after the first failed attempt; doubles with each further one, up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface MailQueue extends JobQueue<OutboxRow> {
  /** Closes the SMTP connections (after the runner stopped). */
  close(): void;
}

const BATCH_SIZE = 20;
// Bounds for one SMTP conversation; the claim outlasts a whole batch of the slowest ones.
const SMTP_TIMEOUT_MS = 20_000;

/**
 * The outbox as a queue of the job runner: each row is rendered and sent over SMTP. A mail
 * that cannot be rendered fails at once (retries will not improve it); a refused or unreachable
 * server is retried, doubling the wait.
 */
export function mailQueue(options: MailQueueOptions): MailQueue {
  const transport = options.smtpUrl
    ? nodemailer.createTransport({
        url: options.smtpUrl,
        pool: true,
        maxConnections: 2,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      })
    : undefined;

  function withManageUrl(payload: MailPayload): MailPayload {
    const { booking_id: id, booking_code, manage_link_version } = payload;
    if (!options.manageUrl || id === undefined || booking_code === undefined || manage_link_version === undefined) return payload;
    return { ...payload, manage_url: options.manageUrl(payload.manage_role ?? 'customer', { id, booking_code, manage_link_version }) };
  }

  const calendarContext = { publicUrl: options.publicUrl, organizer: mailbox(options.from) };

  async function perform(row: OutboxRow, now: Date): Promise<JobOutcome> {
    if (!transport) return { status: 'not_delivered', error: 'SMTP_URL is not set' };
    let rendered;
    let calendar;
    try {
      const payload = withManageUrl(parsePayload(row.payload));
      rendered = renderMail(row.kind, payload);
      calendar = calendarPart(row.kind, row.recipient, payload, calendarContext, now);
    } catch (error) {
      return { status: 'failed', error: `cannot render: ${errorText(error)}` };
    }
    try {
      await transport.sendMail({
        from: options.from,
        to: row.recipient,
        subject: row.subject,
        text: rendered.text,
        html: rendered.html,
        textEncoding: 'quoted-printable',
        // A text/calendar alternative (what calendar clients act on) and the same as invite.ics.
        ...(calendar ? { icalEvent: { method: calendar.method, content: calendar.content, filename: 'invite.ics' } } : {}),
        headers: { 'X-Outbox-Id': String(row.id) },
      });
      return { status: 'sent', extra: { sent_at: new Date().toISOString() } };
    } catch (error) {
      return { retry: true, error: errorText(error) };
    }
  }

  return {
    name: 'mail',
    table: 'outbox',
    batchSize: BATCH_SIZE,
    // One at a time: the SMTP server's pace, and the order mail was written in.
    concurrency: 1,
    claimMs: 2 * BATCH_SIZE * SMTP_TIMEOUT_MS,
    backoff: exponentialBackoff({ baseMs: options.baseDelayMs ?? 60_000, maxMs: options.maxDelayMs ?? 3_600_000, maxAttempts: options.maxAttempts ?? 5 }),
    failedStatus: 'failed',
    perform,
    close: () => transport?.close(),
  };
}

import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../../db/database.js';
import type { LinkedBooking } from '../manage-links/index.js';
import { claimDue, finish, releaseClaims, type Outcome, type OutboxRow } from './repository.js';
import { parsePayload, renderMail, type MailPayload } from './templates.js';

export interface MailSenderOptions {
  db: Db;
  /** smtp:// or smtps:// URL; without it every due mail is marked not_delivered. */
  smtpUrl: string | undefined;
  from: string;
  log: FastifyBaseLogger;
  /** The customer's manage link of a booking, put in mail about it as it is sent. */
  manageUrl?: (booking: LinkedBooking) => string;
  /** Attempts before a mail is marked failed. */
  maxAttempts?: number;
  /** Wait after the first failed attempt; doubles with each further one, up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Rows taken per round. */
  batchSize?: number;
}

export interface RunResult {
  sent: number;
  retrying: number;
  failed: number;
  notDelivered: number;
}

export const DEFAULT_POLL_MS = 5_000;
const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_BASE_DELAY_MS = 60_000;
const DEFAULT_MAX_DELAY_MS = 3_600_000;
const DEFAULT_BATCH_SIZE = 20;
// Bounds for one SMTP conversation; the claim outlasts a whole batch of the slowest ones, so a
// live sender never loses its rows to another.
const SMTP_TIMEOUT_MS = 20_000;
const CLAIM_MS = 2 * DEFAULT_BATCH_SIZE * SMTP_TIMEOUT_MS;
const MAX_ERROR_LENGTH = 1000;

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_LENGTH) || 'unknown error';
}

/**
 * Delivers outbox rows in the background: claims due rows, renders them, sends them over SMTP,
 * and records each outcome. Retries back off exponentially; a row claimed by a process that died
 * is claimed again once the claim lapses, so no mail is lost (it may, rarely, go out twice).
 */
export class MailSender {
  private readonly db: Db;
  private readonly from: string;
  private readonly log: FastifyBaseLogger;
  private readonly manageUrl: ((booking: LinkedBooking) => string) | undefined;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly batchSize: number;
  private readonly transport: Transporter | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RunResult> | undefined;
  private stopping = false;

  constructor(options: MailSenderOptions) {
    this.db = options.db;
    this.from = options.from;
    this.log = options.log;
    this.manageUrl = options.manageUrl;
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
    this.maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.transport = options.smtpUrl
      ? nodemailer.createTransport({
          url: options.smtpUrl,
          pool: true,
          maxConnections: 2,
          connectionTimeout: SMTP_TIMEOUT_MS,
          greetingTimeout: SMTP_TIMEOUT_MS,
          socketTimeout: SMTP_TIMEOUT_MS,
        })
      : undefined;
  }

  /** Polls every intervalMs until stop(); a round still running when the next is due is not doubled. */
  start(intervalMs: number = DEFAULT_POLL_MS): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => {
      if (!this.running) void this.runOnce().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * Stops polling and waits for the mail being sent; rows the round had claimed but not begun
   * are released for the next sender at once. The SMTP connections are closed.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    this.transport?.close();
  }

  /**
   * One round: every row due at `now` (default: the current time) is attempted once. Concurrent
   * calls share the round in progress.
   */
  runOnce(now: Date = new Date()): Promise<RunResult> {
    this.running ??= this.round(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(now: Date): Promise<RunResult> {
    const result: RunResult = { sent: 0, retrying: 0, failed: 0, notDelivered: 0 };
    if (this.stopping) return result;
    try {
      for (;;) {
        const nowIso = now.toISOString();
        const claimUntil = new Date(now.getTime() + CLAIM_MS).toISOString();
        const rows = await claimDue(this.db, nowIso, claimUntil, this.batchSize);
        for (const [i, row] of rows.entries()) {
          if (this.stopping) {
            await releaseClaims(this.db, rows.slice(i).map((r) => r.id), claimUntil);
            return result;
          }
          const outcome = await this.deliver(row, now);
          const recorded = await finish(this.db, row.id, claimUntil, outcome, new Date().toISOString());
          if (!recorded) this.log.warn({ outboxId: row.id }, 'mail claim lapsed before its outcome was recorded');
          if (outcome.status === 'sent') result.sent += 1;
          else if (outcome.status === 'failed') result.failed += 1;
          else if (outcome.status === 'not_delivered') result.notDelivered += 1;
          else result.retrying += 1;
        }
        if (rows.length < this.batchSize || this.stopping) return result;
      }
    } catch (error) {
      // The database may be briefly away; claimed rows are taken again when their claim lapses.
      this.log.warn({ err: error }, 'mail round failed; will try again');
      return result;
    }
  }

  private withManageUrl(payload: MailPayload): MailPayload {
    const { booking_id: id, booking_code, manage_link_version } = payload;
    if (!this.manageUrl || id === undefined || booking_code === undefined || manage_link_version === undefined) return payload;
    return { ...payload, manage_url: this.manageUrl({ id, booking_code, manage_link_version }) };
  }

  private async deliver(row: OutboxRow, now: Date): Promise<Outcome> {
    const attempts = row.attempts + 1;
    const done = (status: Outcome['status'], lastError: string | null): Outcome => ({
      status,
      attempts,
      lastError,
      nextAttemptAt: row.next_attempt_at,
      sentAt: status === 'sent' ? new Date().toISOString() : null,
    });
    if (!this.transport) return done('not_delivered', 'SMTP_URL is not set');

    let rendered;
    try {
      rendered = renderMail(row.kind, this.withManageUrl(parsePayload(row.payload)));
    } catch (error) {
      // A mail that cannot be rendered will not improve with retries.
      return done('failed', `cannot render: ${errorText(error)}`);
    }
    try {
      await this.transport.sendMail({
        from: this.from,
        to: row.recipient,
        subject: row.subject,
        text: rendered.text,
        html: rendered.html,
        textEncoding: 'quoted-printable',
        headers: { 'X-Outbox-Id': String(row.id) },
      });
      return done('sent', null);
    } catch (error) {
      const message = errorText(error);
      this.log.warn({ outboxId: row.id, attempts, err: message }, 'mail delivery failed');
      if (attempts >= this.maxAttempts) return done('failed', message);
      const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempts - 1));
      return {
        status: 'pending',
        attempts,
        lastError: message,
        nextAttemptAt: new Date(now.getTime() + delay).toISOString(),
        sentAt: null,
      };
    }
  }
}

import type { Db } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import { insertOutboxRow, insertOutboxRows } from './repository.js';
import type { MailKind } from './table.js';
import type { MailPayload } from './templates.js';

export interface OutgoingMail {
  kind: MailKind;
  recipient: string;
  subject: string;
  /** What the templates render. */
  payload: MailPayload;
}

function outboxRow(mail: OutgoingMail, at: string) {
  return {
    kind: mail.kind,
    recipient: mail.recipient,
    subject: mail.subject,
    payload: JSON.stringify(mail.payload),
    status: 'pending' as const,
    attempts: 0,
    last_error: null,
    next_attempt_at: at,
    locked_until: null,
    sent_at: null,
    created_at: at,
    updated_at: at,
  };
}

/**
 * Records a mail for the background sender. Call it with the transaction that makes the change
 * the mail is about, so that the mail exists exactly when the change does (contract §9).
 */
export async function enqueueMail(db: Db, mail: OutgoingMail): Promise<number> {
  return insertOutboxRow(db, outboxRow(mail, nowIso()));
}

/** enqueueMail for several mails, in one statement; due from `at` (default now). */
export async function enqueueMails(db: Db, mails: readonly OutgoingMail[], at = nowIso()): Promise<void> {
  if (mails.length === 0) return;
  await insertOutboxRows(db, mails.map((mail) => outboxRow(mail, at)));
}

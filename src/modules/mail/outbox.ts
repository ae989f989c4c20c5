import type { Db } from '../../db/database.js';
import { nowIso } from '../../lib/time.js';
import type { MailKind } from './table.js';

export interface OutgoingMail {
  kind: MailKind;
  recipient: string;
  subject: string;
  /** What the templates render; JSON-serialisable. */
  payload: Record<string, unknown>;
}

/**
 * Records a mail for the background sender. Call it with the transaction that makes the change
 * the mail is about, so that the mail exists exactly when the change does (contract §9).
 */
export async function enqueueMail(db: Db, mail: OutgoingMail): Promise<number> {
  const at = nowIso();
  const { id } = await db
    .insertInto('outbox')
    .values({
      kind: mail.kind,
      recipient: mail.recipient,
      subject: mail.subject,
      payload: JSON.stringify(mail.payload),
      status: 'pending',
      attempts: 0,
      last_error: null,
      next_attempt_at: at,
      locked_until: null,
      sent_at: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

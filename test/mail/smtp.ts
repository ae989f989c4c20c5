import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent, with quoted-printable undone, for assertions on its content. */
  message: string;
  /** The message exactly as sent, for a MIME parser. */
  raw: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** RCPT TO commands seen, refused or not: one per delivery attempt. */
  attempts(): number;
  close(): Promise<void>;
}

/** Undoes quoted-printable soft breaks and =XX escapes (UTF-8) across the whole message. */
export function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replace(/=/g, ''), 'hex').toString('utf8'));
}

export interface SmtpOptions {
  /** Answer every recipient with 550. */
  refuse?: boolean;
  /** Awaited before a received message is acknowledged (to hold a sender mid-send). */
  beforeAccept?: () => Promise<void>;
}

/** A real SMTP server on a free local port. */
export async function startSmtp(options: SmtpOptions = {}): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  let attempts = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      attempts += 1;
      if (options.refuse) {
        callback(Object.assign(new Error('Mailbox unavailable: delivery refused by policy'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mailFrom = session.envelope.mailFrom;
        const mail = {
          from: mailFrom ? mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          message: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
          raw: Buffer.concat(chunks).toString('utf8'),
        };
        void (options.beforeAccept?.() ?? Promise.resolve()).then(() => {
          received.push(mail);
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An smtp:// URL on which nothing listens (connection refused). */
export async function deadSmtpUrl(): Promise<string> {
  const smtp = await startSmtp();
  await smtp.close();
  return smtp.url;
}

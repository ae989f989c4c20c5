import ICAL from 'ical.js';
import { simpleParser } from 'mailparser';
import type { ReceivedMail } from './smtp.js';

export interface ParsedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The text/calendar part's METHOD and its one event, parsed by ical.js; undefined without one. */
  calendar?: { method: string; raw: string; uid: string; sequence: number; start: string; end: string; status: string; summary: string; location: string };
  /** Attachment file names. */
  attachments: string[];
}

/** A received message as a mail client reads it: MIME parsed by mailparser, its calendar part by ical.js. */
export async function parseMail(mail: ReceivedMail): Promise<ParsedMail> {
  const parsed = await simpleParser(mail.raw);
  const calendarPart = parsed.attachments.find((a) => a.contentType === 'text/calendar');
  let calendar: ParsedMail['calendar'];
  if (calendarPart) {
    const raw = calendarPart.content.toString('utf8');
    const component = new ICAL.Component(ICAL.parse(raw) as unknown[]);
    const event = new ICAL.Event(component.getFirstSubcomponent('vevent')!);
    calendar = {
      method: String(component.getFirstPropertyValue('method')),
      raw,
      uid: event.uid,
      sequence: event.sequence,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      status: String(event.component.getFirstPropertyValue('status')),
      summary: event.summary,
      location: event.location,
    };
  }
  return {
    to: mail.to.join(','),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : '',
    ...(calendar ? { calendar } : {}),
    attachments: parsed.attachments.flatMap((a) => (a.filename ? [a.filename] : [])),
  };
}

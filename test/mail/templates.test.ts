import { describe, expect, it } from 'vitest';
import { parsePayload, renderMail } from '../../src/modules/mail/templates.js';

describe('mail templates', () => {
  it('leave out what the payload does not give, without placeholders', () => {
    const { text, html } = renderMail('booking_confirmation', parsePayload('{"service_name":"Massage"}'));
    expect(text).toContain('Hello,\n');
    expect(text).toContain('Service: Massage');
    expect(text).not.toMatch(/undefined|null|When:|Booking:/);
    expect(html).toMatch(/<td[^>]*>Massage<\/td>/);
    expect(html).not.toMatch(/undefined|null|<a /);
  });

  it('render every kind from an empty payload', () => {
    const kinds = [
      'booking_confirmation',
      'booking_change',
      'booking_cancellation',
      'booking_reminder',
      'staff_booking_created',
      'staff_booking_changed',
      'staff_booking_cancelled',
      'customer_welcome',
    ] as const;
    for (const kind of kinds) {
      const { text, html } = renderMail(kind, parsePayload('{}'));
      expect(text.startsWith('Hello,\n')).toBe(true);
      expect(html).toMatch(/<p[^>]*>Hello,<\/p>/);
      expect(`${text}${html}`).not.toMatch(/undefined|null/);
    }
  });

  it('ignore fields of the wrong type and keep numbers as text', () => {
    const payload = parsePayload('{"customer_name":{"x":1},"booking_code":42,"changes":["Agent: A → B",7,""],"agent_name":"  "}');
    expect(payload).toEqual({ booking_code: '42', changes: ['Agent: A → B'] });
  });

  it('escape markup in the HTML body and link only http(s) addresses', () => {
    const { html, text } = renderMail('booking_change', {
      ...parsePayload(JSON.stringify({ customer_name: '<img src=x onerror=alert(1)>', changes: ['<b>'] })),
      manage_url: 'javascript:alert(1)',
    });
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain('<li>&#60;b&#62;</li>');
    expect(html).not.toContain('javascript:');
    expect(text).toContain('View your booking: javascript:alert(1)');
  });

  it('take no manage link from a stored row: the sender makes it (a row from before migration 0022 holds a dead one)', () => {
    expect(parsePayload('{"manage_url":"https://x.test/manage-booking/B?role=customer&key=k","booking_id":7,"manage_link_version":2}')).toEqual({
      booking_id: 7,
      manage_link_version: 2,
    });
  });

  it('show a date it cannot read as it was given', () => {
    const { text } = renderMail('booking_confirmation', parsePayload('{"start_date":"next Monday","start_time":"09:00"}'));
    expect(text).toMatch(/When: +next Monday, 09:00\n/);
  });

  it('refuse a payload that is not a JSON object', () => {
    expect(() => parsePayload('[1]')).toThrow(/not a JSON object/);
    expect(() => parsePayload('nope')).toThrow();
  });
});

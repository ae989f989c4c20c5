import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from '../../lib/html.js';
import { page } from './html.js';

/* What the session plugin and the page controllers both need: reading a posted form, sending a page. */

/** A posted form; a JSON body is parsed too, so its values may be of any type. */
export type Form = Record<string, unknown>;

export function formOf(request: FastifyRequest): Form {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Form) : {};
}

/** The first field of the form with a text longer than `maxLength` characters (any of its values, when repeated). */
export function overlongField(form: Form, maxLength: number): string | undefined {
  return Object.keys(form).find((name) => fields(form, name).some((text) => text.length > maxLength));
}

/** A form field as one string ('' when absent or not text; the first when repeated). */
export function field(form: Form, name: string): string {
  const value = form[name];
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Every text value of a form field. */
export function fields(form: Form, name: string): string[] {
  const value = form[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

export interface Render {
  title: string;
  body: SafeHtml;
  active?: string;
  status?: number;
}

/** Sends a page with headers that keep it out of caches and frames and limit scripts to its own. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, render: Render): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .status(render.status ?? 200)
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src-elem 'nonce-${nonce}'; style-src-attr 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(
      page({
        title: render.title,
        body: render.body,
        nonce,
        ...(render.active ? { active: render.active } : {}),
        ...(request.adminSession ? { csrf: request.adminSession.csrfToken } : {}),
      }),
    );
}

import { hash } from 'node:crypto';
import { randomBase64url } from '../../lib/random.js';

/** A booking's manage key: the secret of its manage links (see manage-booking). */
export function newAccessKey(): string {
  return randomBase64url(24);
}

/**
 * The two manage-booking links. The customer's key is a one-way hash of the agent's, so a
 * customer cannot turn their link into the agent's.
 */
export function manageLinks(publicUrl: string, row: { booking_code: string; access_key: string }): { agent: string; customer: string } {
  const base = `${publicUrl}/manage-booking/${encodeURIComponent(row.booking_code)}`;
  return { agent: `${base}?role=agent&key=${manageKey('agent', row.access_key)}`, customer: `${base}?role=customer&key=${manageKey('customer', row.access_key)}` };
}

/** The key in the agent's or the customer's manage link of a booking with this access key. */
export function manageKey(role: 'agent' | 'customer', accessKey: string): string {
  return role === 'agent' ? accessKey : hash('sha256', accessKey, 'base64url').slice(0, 32);
}

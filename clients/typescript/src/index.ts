import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../schema.js';

export type { components, paths } from '../schema.js';

export interface BookingClientOptions {
  /** Where the service answers, without the API root: `https://booking.example.com` (the paths carry `/booking-api/v1`). */
  baseUrl: string;
  /** Sent as `X-API-Key` on every request; the key's permissions decide which operations answer. */
  apiKey: string;
}

export type BookingClient = Client<paths>;

/** A client whose every path, parameter, body and answer is typed from the service's OpenAPI document. */
export function createBookingClient({ baseUrl, apiKey }: BookingClientOptions): BookingClient {
  return createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
}

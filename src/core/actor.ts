/**
 * Who made a change, as its events record it: the caller's API key, a booking's manage link,
 * a signed-in admin or the command line. The request's id goes with it, so an event can be
 * matched with the request and its log lines.
 */
export type ChangeSource =
  | { type: 'api_key'; api_key_id: number }
  | { type: 'manage_link'; role: 'customer' | 'agent' }
  | { type: 'admin' }
  | { type: 'cli' };

export interface Actor {
  readonly source: ChangeSource;
  /** The X-Request-Id of the request that made the change; null outside a request. */
  readonly requestId: string | null;
}

import type { Db } from '../../src/db/database.js';
import type { Json, TestApp } from '../helper.js';

/** Empties the tables the catalog tests fill, children first, so each test starts from nothing. */
export async function resetCatalog(db: Db): Promise<void> {
  for (const table of ['booking_meta', 'order_items', 'transactions', 'invoices', 'bookings', 'orders', 'customers'] as const) {
    await db.deleteFrom(table).execute();
  }
  for (const table of ['agent_services', 'agent_locations', 'agents', 'services', 'locations', 'service_categories', 'location_categories'] as const) {
    await db.deleteFrom(table).execute();
  }
}

export interface Answer {
  status: number;
  body: Json;
}

/** One request under the API root with a key of all permissions (or the one given). */
export function caller(t: TestApp) {
  let allKey: string | undefined;
  return async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown, key?: string): Promise<Answer> => {
    allKey ??= await t.key();
    const res = await t.app.inject({
      method,
      url: `/booking-api/v1${path}`,
      headers: { 'x-api-key': key ?? allKey },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.json() };
  };
}

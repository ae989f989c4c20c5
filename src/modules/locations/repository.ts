import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { containsText } from '../../http/list-query.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import type { Removal } from '../catalog/index.js';
import type { LocationsTable } from './table.js';

export type LocationRow = Selectable<LocationsTable>;

export interface LocationFilter {
  search?: string;
  status?: LocationsTable['status'];
}

function filtered(db: Db, filter: LocationFilter) {
  let query = db.selectFrom('locations').where('deleted_at', 'is', null);
  if (filter.status) query = query.where('status', '=', filter.status);
  const { search } = filter;
  if (search) query = query.where((eb) => eb.or([containsText('name', search), containsText('full_address', search)]));
  return query;
}

export async function listLocations(db: Db, filter: LocationFilter, page: PageRequest): Promise<{ rows: LocationRow[]; total: number }> {
  const { total } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await filtered(db, filter)
    .selectAll()
    .orderBy('order_number')
    .orderBy('id')
    .limit(page.perPage)
    .offset(offsetOf(page))
    .execute();
  return { rows, total: Number(total) };
}

export function findLocation(db: Db, id: number): Promise<LocationRow | undefined> {
  return db.selectFrom('locations').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export function insertLocation(db: Db, row: Insertable<LocationsTable>): Promise<LocationRow> {
  return db.insertInto('locations').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateLocation(db: Db, id: number, changes: Updateable<LocationsTable>): Promise<LocationRow | undefined> {
  return db.updateTable('locations').set(changes).where('id', '=', id).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

async function detachLocation(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('agent_locations').where('location_id', '=', id).execute();
  await trx.updateTable('customers').set({ preferred_location_id: null }).where('preferred_location_id', '=', id).execute();
}

export const locationRemoval: Removal = {
  column: 'location_id',
  code: 'location_has_bookings',
  what: 'Location',
  exists: async (trx, id) => (await findLocation(trx, id)) !== undefined,
  remove: async (trx, id) => {
    await detachLocation(trx, id);
    await trx.deleteFrom('locations').where('id', '=', id).execute();
  },
  retire: async (trx, id, at) => {
    await detachLocation(trx, id);
    await trx.updateTable('locations').set({ status: 'inactive', deleted_at: at, updated_at: at }).where('id', '=', id).execute();
  },
};

/** The first live location with the name, by id. */
export function findLocationByName(db: Db, name: string): Promise<{ id: number } | undefined> {
  return db.selectFrom('locations').select('id').where('name', '=', name).where('deleted_at', 'is', null).orderBy('id').executeTakeFirst();
}

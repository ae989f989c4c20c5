import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { containsText } from '../../http/list-query.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import type { Removal } from './in-use.js';
import type { ServicesTable } from './table.js';

export type ServiceRow = Selectable<ServicesTable>;

export interface ServiceFilter {
  search?: string;
  name?: string;
  status?: ServicesTable['status'];
  categoryId?: number;
  locationId?: number;
  agentId?: number;
  visibility?: ServicesTable['visibility'];
  priceMinCents?: number;
  priceMaxCents?: number;
  durationMin?: number;
  durationMax?: number;
  /** Stored-instant bounds: from inclusive, before exclusive. */
  createdFrom?: string;
  createdBefore?: string;
  updatedFrom?: string;
  updatedBefore?: string;
}

export type ServiceSort = 'id' | 'name' | 'price' | 'duration' | 'created_date' | 'updated_date';

function filtered(db: Db, f: ServiceFilter) {
  let q = db.selectFrom('services').where('services.deleted_at', 'is', null);
  const { search, locationId, agentId } = f;
  if (search) {
    q = q.where((eb) =>
      eb.or([containsText('services.name', search), containsText('services.short_description', search), containsText('services.description', search)]),
    );
  }
  if (f.name !== undefined) q = q.where('services.name', '=', f.name);
  if (f.status) q = q.where('services.status', '=', f.status);
  if (f.visibility) q = q.where('services.visibility', '=', f.visibility);
  if (f.categoryId !== undefined) q = q.where('services.category_id', '=', f.categoryId);
  if (f.priceMinCents !== undefined) q = q.where('services.price_min_cents', '>=', f.priceMinCents);
  if (f.priceMaxCents !== undefined) q = q.where('services.price_min_cents', '<=', f.priceMaxCents);
  if (f.durationMin !== undefined) q = q.where('services.duration', '>=', f.durationMin);
  if (f.durationMax !== undefined) q = q.where('services.duration', '<=', f.durationMax);
  if (f.createdFrom) q = q.where('services.created_at', '>=', f.createdFrom);
  if (f.createdBefore) q = q.where('services.created_at', '<', f.createdBefore);
  if (f.updatedFrom) q = q.where('services.updated_at', '>=', f.updatedFrom);
  if (f.updatedBefore) q = q.where('services.updated_at', '<', f.updatedBefore);
  if (agentId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb.selectFrom('agent_services').select('agent_services.agent_id').whereRef('agent_services.service_id', '=', 'services.id').where('agent_services.agent_id', '=', agentId),
      ),
    );
  }
  if (locationId !== undefined) {
    // Offered at a location: an active agent is connected to both (there is no service–location table).
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('agent_services')
          .innerJoin('agent_locations', 'agent_locations.agent_id', 'agent_services.agent_id')
          .innerJoin('agents', 'agents.id', 'agent_services.agent_id')
          .select('agent_services.agent_id')
          .whereRef('agent_services.service_id', '=', 'services.id')
          .where('agent_locations.location_id', '=', locationId)
          .where('agents.status', '=', 'active'),
      ),
    );
  }
  return q;
}

export async function listServices(
  db: Db,
  filter: ServiceFilter,
  sort: { by: ServiceSort; direction: 'asc' | 'desc' },
  page: PageRequest,
): Promise<{ rows: ServiceRow[]; total: number }> {
  const { total } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const column = {
    id: sql.ref('services.id'),
    name: sql`lower(services.name)`,
    price: sql.ref('services.price_min_cents'),
    duration: sql.ref('services.duration'),
    created_date: sql.ref('services.created_at'),
    updated_date: sql.ref('services.updated_at'),
  }[sort.by];
  const rows = await filtered(db, filter)
    .selectAll('services')
    .orderBy(column, sort.direction)
    .orderBy('services.id', sort.direction)
    .limit(page.perPage)
    .offset(offsetOf(page))
    .execute();
  return { rows, total: Number(total) };
}

export function findService(db: Db, id: number): Promise<ServiceRow | undefined> {
  return db.selectFrom('services').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export function insertService(db: Db, row: Insertable<ServicesTable>): Promise<ServiceRow> {
  return db.insertInto('services').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateService(db: Db, id: number, changes: Updateable<ServicesTable>): Promise<ServiceRow | undefined> {
  return db.updateTable('services').set(changes).where('id', '=', id).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

export const serviceRemoval: Removal = {
  column: 'service_id',
  code: 'service_has_bookings',
  what: 'Service',
  exists: async (trx, id) => (await findService(trx, id)) !== undefined,
  remove: async (trx, id) => {
    await trx.deleteFrom('agent_services').where('service_id', '=', id).execute();
    await trx.deleteFrom('services').where('id', '=', id).execute();
  },
  retire: async (trx, id, at) => {
    await trx.deleteFrom('agent_services').where('service_id', '=', id).execute();
    await trx.updateTable('services').set({ status: 'disabled', deleted_at: at, updated_at: at }).where('id', '=', id).execute();
  },
};

/** The ids among `ids` that name no agent. */
export async function missingAgents(db: Db, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('agents').select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute();
  const present = new Set(found.map((r) => r.id));
  return ids.filter((id) => !present.has(id));
}

/**
 * Makes `agentIds` exactly the agents connected to a service. Connections that stay keep their
 * custom price, duration and hours; new ones have none.
 */
export async function setServiceAgents(trx: Db, serviceId: number, agentIds: readonly number[]): Promise<void> {
  let removal = trx.deleteFrom('agent_services').where('service_id', '=', serviceId);
  if (agentIds.length > 0) removal = removal.where('agent_id', 'not in', agentIds);
  await removal.execute();
  if (agentIds.length === 0) return;
  await trx
    .insertInto('agent_services')
    .values(agentIds.map((agent_id) => ({ agent_id, service_id: serviceId, custom_price_cents: null, custom_duration: null, custom_hours: null })))
    .onConflict((oc) => oc.columns(['agent_id', 'service_id']).doNothing())
    .execute();
}

export function categoriesOf(db: Db, ids: readonly number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('service_categories').select(['id', 'name']).where('id', 'in', ids).execute();
}

export function agentsOf(db: Db, serviceIds: readonly number[]) {
  if (serviceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('agent_services')
    .innerJoin('agents', 'agents.id', 'agent_services.agent_id')
    .select(['agent_services.service_id', 'agents.id', 'agents.first_name', 'agents.last_name'])
    .where('agent_services.service_id', 'in', serviceIds)
    .orderBy('agents.id')
    .execute();
}

/** Per service, the locations where an active agent connected to it works. */
export function locationsOf(db: Db, serviceIds: readonly number[]) {
  if (serviceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('agent_services')
    .innerJoin('agents', 'agents.id', 'agent_services.agent_id')
    .innerJoin('agent_locations', 'agent_locations.agent_id', 'agent_services.agent_id')
    .innerJoin('locations', 'locations.id', 'agent_locations.location_id')
    .select(['agent_services.service_id', 'locations.id', 'locations.name', 'locations.full_address'])
    .distinct()
    .where('agent_services.service_id', 'in', serviceIds)
    .where('agents.status', '=', 'active')
    .orderBy('locations.id')
    .execute();
}

/** The first live service with the name, by id. */
export function findServiceByName(db: Db, name: string): Promise<{ id: number } | undefined> {
  return db.selectFrom('services').select('id').where('name', '=', name).where('deleted_at', 'is', null).orderBy('id').executeTakeFirst();
}

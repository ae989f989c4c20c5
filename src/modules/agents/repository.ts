import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { containsText } from '../../http/list-query.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import type { Removal } from '../catalog/index.js';
import type { AgentsTable } from './table.js';

export type AgentRow = Selectable<AgentsTable>;

export interface AgentFilter {
  status?: AgentsTable['status'];
  search?: string;
  email?: string;
  phone?: string;
  locationId?: number;
  serviceId?: number;
  /** Stored-instant bounds: from inclusive, before exclusive. */
  createdFrom?: string;
  createdBefore?: string;
}

export type AgentSort = 'id' | 'first_name' | 'last_name' | 'email' | 'created_at' | 'updated_at' | 'status';

/** A service connection as `setAgentServices` writes it; `custom` absent keeps what is stored. */
export interface ServiceLink {
  serviceId: number;
  custom?: { priceCents: number | null; duration: number | null; hours: string | null; bufferBefore?: number | null; bufferAfter?: number | null };
}

function filtered(db: Db, f: AgentFilter) {
  let q = db.selectFrom('agents').where('agents.deleted_at', 'is', null);
  const { phone, locationId, serviceId } = f;
  const search = f.search?.trim();
  if (f.status) q = q.where('agents.status', '=', f.status);
  if (search) {
    // The full name holds the first and the last: "Maria", "Keller" and "Maria Keller" all find her.
    const fullName = sql<string>`agents.first_name || ' ' || agents.last_name`;
    q = q.where((eb) => eb.or([containsText(fullName, search), containsText('agents.email', search)]));
  }
  if (f.email !== undefined) q = q.where(sql<boolean>`lower(agents.email) = lower(${f.email.trim()})`);
  if (phone) q = q.where(containsText('agents.phone', phone));
  if (f.createdFrom) q = q.where('agents.created_at', '>=', f.createdFrom);
  if (f.createdBefore) q = q.where('agents.created_at', '<', f.createdBefore);
  if (locationId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb.selectFrom('agent_locations').select('agent_locations.agent_id').whereRef('agent_locations.agent_id', '=', 'agents.id').where('agent_locations.location_id', '=', locationId),
      ),
    );
  }
  if (serviceId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb.selectFrom('agent_services').select('agent_services.agent_id').whereRef('agent_services.agent_id', '=', 'agents.id').where('agent_services.service_id', '=', serviceId),
      ),
    );
  }
  return q;
}

export async function listAgents(
  db: Db,
  filter: AgentFilter,
  sort: { by: AgentSort; direction: 'asc' | 'desc' },
  page: PageRequest,
): Promise<{ rows: AgentRow[]; total: number }> {
  const { total } = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  // Names sort case-insensitively, the same on both databases.
  const column = {
    id: sql.ref('agents.id'),
    first_name: sql`lower(agents.first_name)`,
    last_name: sql`lower(agents.last_name)`,
    email: sql`lower(agents.email)`,
    created_at: sql.ref('agents.created_at'),
    updated_at: sql.ref('agents.updated_at'),
    status: sql.ref('agents.status'),
  }[sort.by];
  const rows = await filtered(db, filter)
    .selectAll('agents')
    .orderBy(column, sort.direction)
    .orderBy('agents.id', sort.direction)
    .limit(page.perPage)
    .offset(offsetOf(page))
    .execute();
  return { rows, total: Number(total) };
}

export function findAgent(db: Db, id: number): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export function insertAgent(db: Db, row: Insertable<AgentsTable>): Promise<AgentRow> {
  return db.insertInto('agents').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateAgent(db: Db, id: number, changes: Updateable<AgentsTable>): Promise<AgentRow | undefined> {
  return db.updateTable('agents').set(changes).where('id', '=', id).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

async function detachAgent(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('agent_services').where('agent_id', '=', id).execute();
  await trx.deleteFrom('agent_locations').where('agent_id', '=', id).execute();
  await trx.updateTable('customers').set({ preferred_agent_id: null }).where('preferred_agent_id', '=', id).execute();
}

export const agentRemoval: Removal = {
  column: 'agent_id',
  code: 'agent_has_bookings',
  what: 'Agent',
  exists: async (trx, id) => (await findAgent(trx, id)) !== undefined,
  remove: async (trx, id) => {
    await detachAgent(trx, id);
    await trx.deleteFrom('agents').where('id', '=', id).execute();
  },
  retire: async (trx, id, at) => {
    await detachAgent(trx, id);
    await trx.updateTable('agents').set({ status: 'disabled', deleted_at: at, updated_at: at }).where('id', '=', id).execute();
  },
};

async function missingIds(db: Db, table: 'services' | 'locations', ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom(table).select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute();
  const present = new Set(found.map((r) => r.id));
  return [...new Set(ids)].filter((id) => !present.has(id));
}

export const missingServices = (db: Db, ids: readonly number[]) => missingIds(db, 'services', ids);
export const missingLocations = (db: Db, ids: readonly number[]) => missingIds(db, 'locations', ids);

/** Makes `links` exactly the agent's services; a link without `custom` keeps its stored custom values. */
export async function setAgentServices(trx: Db, agentId: number, links: readonly ServiceLink[]): Promise<void> {
  const ids = links.map((l) => l.serviceId);
  let removal = trx.deleteFrom('agent_services').where('agent_id', '=', agentId);
  if (ids.length > 0) removal = removal.where('service_id', 'not in', ids);
  await removal.execute();
  for (const link of links) {
    const values = {
      agent_id: agentId,
      service_id: link.serviceId,
      custom_price_cents: link.custom?.priceCents ?? null,
      custom_duration: link.custom?.duration ?? null,
      custom_hours: link.custom?.hours ?? null,
      buffer_before: link.custom?.bufferBefore ?? null,
      buffer_after: link.custom?.bufferAfter ?? null,
    };
    const custom = link.custom;
    await trx
      .insertInto('agent_services')
      .values(values)
      .onConflict((oc) =>
        custom
          ? oc.columns(['agent_id', 'service_id']).doUpdateSet({
              custom_price_cents: custom.priceCents,
              custom_duration: custom.duration,
              custom_hours: custom.hours,
              buffer_before: custom.bufferBefore ?? null,
              buffer_after: custom.bufferAfter ?? null,
            })
          : oc.columns(['agent_id', 'service_id']).doNothing(),
      )
      .execute();
  }
}

export async function setAgentLocations(trx: Db, agentId: number, locationIds: readonly number[]): Promise<void> {
  let removal = trx.deleteFrom('agent_locations').where('agent_id', '=', agentId);
  if (locationIds.length > 0) removal = removal.where('location_id', 'not in', locationIds);
  await removal.execute();
  if (locationIds.length === 0) return;
  await trx
    .insertInto('agent_locations')
    .values(locationIds.map((location_id) => ({ agent_id: agentId, location_id })))
    .onConflict((oc) => oc.columns(['agent_id', 'location_id']).doNothing())
    .execute();
}

export function servicesOf(db: Db, agentIds: readonly number[]) {
  if (agentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('agent_services')
    .innerJoin('services', 'services.id', 'agent_services.service_id')
    .select([
      'agent_services.agent_id',
      'services.id',
      'services.name',
      'agent_services.custom_price_cents',
      'agent_services.custom_duration',
      'agent_services.custom_hours',
      'agent_services.buffer_before',
      'agent_services.buffer_after',
    ])
    .where('agent_services.agent_id', 'in', agentIds)
    .orderBy('services.id')
    .execute();
}

export function locationsOf(db: Db, agentIds: readonly number[]) {
  if (agentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('agent_locations')
    .innerJoin('locations', 'locations.id', 'agent_locations.location_id')
    .select(['agent_locations.agent_id', 'locations.id', 'locations.name'])
    .where('agent_locations.agent_id', 'in', agentIds)
    .orderBy('locations.id')
    .execute();
}

/** A live agent with the (lower-case) email, compared case-insensitively. */
export function findAgentByEmail(db: Db, emailLower: string): Promise<{ id: number } | undefined> {
  return db.selectFrom('agents').select('id').where(sql`lower(email)`, '=', emailLower).where('deleted_at', 'is', null).executeTakeFirst();
}

import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './table.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export async function insertEndpoint(db: Db, row: Insertable<WebhookEndpointsTable>): Promise<EndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findEndpoint(db: Db, id: number): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listEndpoints(db: Db, limit: number, offset: number): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await db.selectFrom('webhook_endpoints').selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute();
  const { n } = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

export function enabledEndpointsForDispatch(db: Db): Promise<Pick<EndpointRow, 'id' | 'event_types' | 'created_at'>[]> {
  return db.selectFrom('webhook_endpoints').select(['id', 'event_types', 'created_at']).where('status', '=', 'enabled').orderBy('id').execute();
}

export async function updateEndpoint(db: Db, id: number, values: Updateable<WebhookEndpointsTable>): Promise<EndpointRow | undefined> {
  return db.updateTable('webhook_endpoints').set(values).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteEndpoint(db: Db, id: number): Promise<boolean> {
  // Its deliveries and their attempts go with it, on either engine whatever its foreign-key enforcement.
  const deliveries = db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id);
  await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A delivery due at `at`, not yet attempted: an event's (its body read from the event) or a test's (its own body). */
export function newDelivery(endpointId: number, what: { eventId: number; eventType: string } | { testPayload: string }, at: string): Insertable<WebhookDeliveriesTable> {
  return {
    endpoint_id: endpointId,
    event_id: 'eventId' in what ? what.eventId : null,
    event_type: 'eventId' in what ? what.eventType : 'webhook.test',
    payload: 'eventId' in what ? null : what.testPayload,
    status: 'pending',
    attempts: 0,
    last_error: null,
    last_status_code: null,
    next_attempt_at: at,
    locked_until: null,
    delivered_at: null,
    created_at: at,
    updated_at: at,
  };
}

export async function insertDeliveries(db: Db, rows: readonly Insertable<WebhookDeliveriesTable>[]): Promise<DeliveryRow[]> {
  if (rows.length === 0) return [];
  return db.insertInto('webhook_deliveries').values(rows).returningAll().execute();
}

export function findDelivery(db: Db, endpointId: number, id: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('endpoint_id', '=', endpointId).executeTakeFirst();
}

export async function listDeliveries(db: Db, endpointId: number, limit: number, offset: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const rows = await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(limit).offset(offset).execute();
  const { n } = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

export async function updateDelivery(db: Db, id: number, values: Updateable<WebhookDeliveriesTable>): Promise<DeliveryRow> {
  return db.updateTable('webhook_deliveries').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function attemptsOf(db: Db, deliveryIds: readonly number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id').execute();
}

export async function insertAttempt(db: Db, row: Insertable<WebhookAttemptsTable>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/** The last event the dispatcher turned into deliveries. */
export async function dispatchCursor(db: Db): Promise<number | null> {
  const row = await db.selectFrom('webhook_dispatch').select('last_event_id').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.last_event_id;
}

export async function moveDispatchCursor(db: Db, lastEventId: number, at: string): Promise<void> {
  await db.updateTable('webhook_dispatch').set({ last_event_id: lastEventId, updated_at: at }).where('id', '=', 1).execute();
}

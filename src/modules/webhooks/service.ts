import { AppError, notFound } from '../../core/errors.js';
import { offsetOf, pageRequest, pagination } from '../../core/pagination.js';
import type { Db } from '../../db/database.js';
import { refusedUrl, type AddressRules } from './address.js';
import * as repository from './repository.js';
import type { WebhookCreateBody, WebhookEndpointView, WebhookListQuery, WebhookUpdateBody } from './schemas.js';
import { ROTATION_OVERLAP_MS, type WebhookSecrets } from './secrets.js';

/** What the endpoints' routes need beside the database. */
export interface WebhookContext {
  secrets: WebhookSecrets;
  addresses: AddressRules;
}

export function presentEndpoint(row: repository.EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.event_types === null ? null : (JSON.parse(row.event_types) as WebhookEndpointView['event_types']),
    status: row.status,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function checkUrl(url: string, rules: AddressRules): Promise<void> {
  const problem = await refusedUrl(url, rules);
  if (problem !== undefined) throw new AppError('invalid_request', `url ${problem}`, { url: problem });
}

async function requireEndpoint(db: Db, id: number): Promise<repository.EndpointRow> {
  const row = await repository.findEndpoint(db, id);
  if (!row) throw notFound('webhook_not_found', 'Webhook endpoint', id);
  return row;
}

/** POST /webhooks: the endpoint, with its signing secret shown this once. */
export async function createEndpoint(db: Db, context: WebhookContext, body: WebhookCreateBody) {
  await checkUrl(body.url, context.addresses);
  const at = new Date().toISOString();
  const row = await repository.insertEndpoint(db, {
    url: body.url,
    description: body.description ?? null,
    event_types: body.event_types ? JSON.stringify(body.event_types) : null,
    status: body.status ?? 'enabled',
    disabled_reason: null,
    secret_version: 1,
    previous_secret_version: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: at,
    updated_at: at,
  });
  return { ...presentEndpoint(row), secret: context.secrets.secret(row.id, row.secret_version) };
}

export async function listEndpoints(db: Db, query: WebhookListQuery) {
  const page = pageRequest(query, 20);
  const { rows, total } = await repository.listEndpoints(db, page.perPage, offsetOf(page));
  return { success: true as const, data: rows.map(presentEndpoint), pagination: pagination(page, total) };
}

export async function getEndpoint(db: Db, id: number): Promise<WebhookEndpointView> {
  return presentEndpoint(await requireEndpoint(db, id));
}

/** PUT /webhooks/{id}: only the fields given change; enabling an endpoint the service disabled starts it afresh. */
export async function updateEndpoint(db: Db, context: WebhookContext, id: number, body: WebhookUpdateBody): Promise<WebhookEndpointView> {
  const current = await requireEndpoint(db, id);
  if (body.url !== undefined) await checkUrl(body.url, context.addresses);
  const enabling = body.status === 'enabled' && current.status === 'disabled';
  const row = await repository.updateEndpoint(db, id, {
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.event_types !== undefined ? { event_types: body.event_types === null ? null : JSON.stringify(body.event_types) } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
    ...(enabling ? { disabled_reason: null, failing_since: null } : {}),
    ...(body.status === 'disabled' ? { disabled_reason: null } : {}),
    updated_at: new Date().toISOString(),
  });
  if (!row) throw notFound('webhook_not_found', 'Webhook endpoint', id);
  return presentEndpoint(row);
}

export async function deleteEndpoint(db: Db, id: number): Promise<{ id: number; deleted: true }> {
  if (!(await db.transaction().execute((trx) => repository.deleteEndpoint(trx, id)))) throw notFound('webhook_not_found', 'Webhook endpoint', id);
  return { id, deleted: true };
}

/**
 * POST /webhooks/{id}/rotate-secret: a new secret, shown this once; deliveries are signed with the
 * old one as well for a day, so the receiver can switch without losing any.
 */
export async function rotateSecret(db: Db, context: WebhookContext, id: number, now: Date = new Date()) {
  const current = await requireEndpoint(db, id);
  const row = await repository.updateEndpoint(db, id, {
    secret_version: current.secret_version + 1,
    previous_secret_version: current.secret_version,
    previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
    updated_at: now.toISOString(),
  });
  if (!row) throw notFound('webhook_not_found', 'Webhook endpoint', id);
  return { ...presentEndpoint(row), secret: context.secrets.secret(row.id, row.secret_version) };
}

function presentDelivery(row: repository.DeliveryRow, attempts: readonly repository.AttemptRow[]) {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
    attempt_log: attempts.map((a) => ({
      attempted_at: a.attempted_at,
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      response_body: a.response_body,
      error: a.error,
    })),
  };
}

async function withAttempts(db: Db, rows: readonly repository.DeliveryRow[]) {
  const attempts = await repository.attemptsOf(db, rows.map((r) => r.id));
  return rows.map((row) => presentDelivery(row, attempts.filter((a) => a.delivery_id === row.id)));
}

/** GET /webhooks/{id}/deliveries: newest first, each with its attempts. */
export async function listDeliveries(db: Db, endpointId: number, query: WebhookListQuery) {
  await requireEndpoint(db, endpointId);
  const page = pageRequest(query, 20);
  const { rows, total } = await repository.listDeliveries(db, endpointId, page.perPage, offsetOf(page));
  return { success: true as const, data: await withAttempts(db, rows), pagination: pagination(page, total) };
}

/** POST …/deliveries/{delivery_id}/retry: due again now, its attempts kept; one still pending is left as it is. */
export async function retryDelivery(db: Db, endpointId: number, deliveryId: number, now: Date = new Date()) {
  await requireEndpoint(db, endpointId);
  const current = await repository.findDelivery(db, endpointId, deliveryId);
  if (!current) throw notFound('webhook_delivery_not_found', 'Webhook delivery', deliveryId);
  const row =
    current.status === 'pending'
      ? await repository.updateDelivery(db, deliveryId, { next_attempt_at: now.toISOString(), updated_at: now.toISOString() })
      : await repository.updateDelivery(db, deliveryId, { status: 'pending', next_attempt_at: now.toISOString(), locked_until: null, updated_at: now.toISOString() });
  return presentDelivery(row, await repository.attemptsOf(db, [row.id]));
}

/** POST /webhooks/{id}/test: a `webhook.test` delivery to this endpoint alone, due now. */
export async function testEndpoint(db: Db, endpointId: number, now: Date = new Date()) {
  await requireEndpoint(db, endpointId);
  const at = now.toISOString();
  const testPayload = JSON.stringify({ type: 'webhook.test', created_at: at, data: { webhook_id: endpointId } });
  const [row] = (await repository.insertDeliveries(db, [repository.newDelivery(endpointId, { testPayload }, at)])) as [repository.DeliveryRow];
  return presentDelivery(row, []);
}

/** The admin page's overview: the endpoints, newest first, each with its latest deliveries. */
export async function endpointsWithRecentDeliveries(db: Db, endpoints: number, deliveries: number) {
  const { rows } = await repository.listEndpoints(db, endpoints, 0);
  const shown = [];
  for (const row of rows) {
    const recent = await repository.listDeliveries(db, row.id, deliveries, 0);
    shown.push({ endpoint: presentEndpoint(row), deliveries: await withAttempts(db, recent.rows) });
  }
  return shown;
}

import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { AppError } from './errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
/** Keys are kept at least this long (the promise made to clients), then purged. */
export const RETENTION_MS = 24 * 3600 * 1000;
/** A request still "in progress" after this long died with its process; a retry takes over. */
const ABANDONED_MS = 60_000;
/** How long a concurrent duplicate waits for the first request to finish. */
const WAIT_MS = 15_000;
const POLL_MS = 25;
const PURGE_EVERY_MS = 3600 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request owns an idempotency record whose response it must store. */
    idempotencyRecordId: number | undefined;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${request.body === undefined ? '' : JSON.stringify(request.body)}`)
    .digest('hex');
}

type Stored = { state: string; request_hash: string; response_status: number | null; response_type: string | null; response_body: string | null; updated_at: string };

async function replay(reply: FastifyReply, stored: Stored): Promise<FastifyReply> {
  return reply
    .status(stored.response_status ?? 200)
    .header('idempotent-replayed', 'true')
    .type(stored.response_type ?? 'application/json; charset=utf-8')
    .send(stored.response_body ?? '');
}

/**
 * Safe retries: a POST or PUT with an Idempotency-Key runs once per (API key, idempotency key).
 * The first response is stored with a hash of the request; a retry with the same request gets
 * the stored response without the work being done again, a different request under the same
 * key gets 422 idempotency_key_reused, and concurrent duplicates wait for the first to finish.
 * Server errors (5xx) are not stored, so that a retry can succeed once the cause is gone.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, now: () => number = Date.now): void {
  app.decorateRequest('idempotencyRecordId', undefined);
  let purgedAt = 0;

  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || (request.method !== 'POST' && request.method !== 'PUT') || !request.apiKey) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || key.length > MAX_KEY_LENGTH) {
      throw new AppError('invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, {
        'Idempotency-Key': `must be 1 to ${MAX_KEY_LENGTH} characters`,
      });
    }
    const hash = requestHash(request);
    const apiKeyId = request.apiKey.id;

    if (now() - purgedAt > PURGE_EVERY_MS) {
      purgedAt = now();
      await db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(now() - RETENTION_MS).toISOString()).execute();
    }

    const deadline = now() + WAIT_MS;
    for (;;) {
      const at = new Date(now()).toISOString();
      const claimed = await db
        .insertInto('idempotency_keys')
        .values({ api_key_id: apiKeyId, idempotency_key: key, request_hash: hash, state: 'in_progress', response_status: null, response_type: null, response_body: null, created_at: at, updated_at: at })
        .onConflict((oc) => oc.columns(['api_key_id', 'idempotency_key']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (claimed) {
        request.idempotencyRecordId = claimed.id;
        return;
      }
      const stored = await db
        .selectFrom('idempotency_keys')
        .select(['id', 'state', 'request_hash', 'response_status', 'response_type', 'response_body', 'updated_at'])
        .where('api_key_id', '=', apiKeyId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      if (!stored) continue; // purged or released between the two statements: claim again
      if (stored.request_hash !== hash) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request', {
          'Idempotency-Key': 'already used with a different method, path or body',
        });
      }
      if (stored.state === 'done') return replay(reply, stored);
      if (now() - Date.parse(stored.updated_at) > ABANDONED_MS) {
        // Its first request died mid-way: release the record and claim it afresh.
        await db.deleteFrom('idempotency_keys').where('id', '=', stored.id).where('updated_at', '=', stored.updated_at).execute();
        continue;
      }
      if (now() > deadline) {
        throw new AppError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still being processed; retry later');
      }
      await sleep(POLL_MS);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const id = request.idempotencyRecordId;
    if (id === undefined) return payload;
    request.idempotencyRecordId = undefined;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await db.deleteFrom('idempotency_keys').where('id', '=', id).execute();
      return payload;
    }
    await db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        response_status: reply.statusCode,
        response_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        response_body: payload,
        updated_at: new Date(now()).toISOString(),
      })
      .where('id', '=', id)
      .execute();
    return payload;
  });
}

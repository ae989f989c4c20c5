import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { runInWriteScope, type RunStatement, type WriteScope } from '../db/write-scope.js';
import { AppError } from '../core/errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
/** Keys are kept at least this long (the promise made to clients), then purged. */
export const RETENTION_MS = 24 * 3600 * 1000;
/** A request unfinished after this long (since its claim or its last commit) died with its process. */
const ABANDONED_MS = 60_000;
/** How long a concurrent duplicate waits for the first request to finish. */
const WAIT_MS = 15_000;
const POLL_MS = 25;
const PURGE_EVERY_MS = 3600 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request owns an idempotency record whose response it must store. */
    idempotencyRecord: OwnedRecord | undefined;
  }
}

interface OwnedRecord {
  id: number;
  /** Marks the record applied in every transaction of this request that writes. */
  scope: WriteScope;
}

/** JSON with every object's keys in order: the same request written with its fields in another order is the same request. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${request.body === undefined ? '' : canonicalJson(request.body)}`)
    .digest('hex');
}

type Stored = { state: string; request_hash: string; response_status: number | null; response_type: string | null; response_body: string | null; updated_at: string };

/**
 * Rewrites a reply's body as it is stored and back as it is replayed: what no stored row may hold
 * in clear (manage-link keys) is left out, and put back on replay.
 */
export interface StoredReplyFilter {
  store(body: string): Promise<string>;
  replay(body: string): Promise<string>;
}

const UNFILTERED: StoredReplyFilter = { store: async (body) => body, replay: async (body) => body };

async function replay(reply: FastifyReply, stored: Stored, filter: StoredReplyFilter): Promise<FastifyReply> {
  return reply
    .status(stored.response_status ?? 200)
    .header('idempotent-replayed', 'true')
    .type(stored.response_type ?? 'application/json; charset=utf-8')
    .send(await filter.replay(stored.response_body ?? ''));
}

const responseLost = () =>
  new AppError(
    'idempotency_response_lost',
    'The request with this Idempotency-Key was applied, but its response was lost; read the resource to see the result',
  );

/**
 * Safe retries: a POST or PUT with an Idempotency-Key runs once per (API key, idempotency key).
 * The first response is stored with a hash of the request; a retry with the same request gets
 * the stored response without the work being done again, a different request under the same
 * key gets 422 idempotency_key_reused, and concurrent duplicates wait for the first to finish.
 *
 * A record is `in_progress` until the request's first write commits: every transaction that
 * writes for the request marks it `applied` before its COMMIT (see WriteScope), so the database
 * knows whether the work happened even if the process dies before the response is stored (`done`).
 * A retry after such a death runs the request again only if nothing of it committed; otherwise it
 * answers 409 idempotency_response_lost. Server errors (5xx) are not stored, so that a retry can
 * succeed once the cause is gone, unless the work had committed (`lost`).
 */
export function registerIdempotency(app: FastifyInstance, db: Db, storedReplies: StoredReplyFilter = UNFILTERED, now: () => number = Date.now): void {
  app.decorateRequest('idempotencyRecord', undefined);
  let purgedAt = 0;

  /** The record this request now owns, or undefined when it has none (or was answered). */
  async function claim(request: FastifyRequest, reply: FastifyReply): Promise<number | undefined> {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || (request.method !== 'POST' && request.method !== 'PUT') || !request.apiKey) return undefined;
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
      if (claimed) return claimed.id;
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
      if (stored.state === 'done') {
        await replay(reply, stored, storedReplies);
        return undefined;
      }
      if (stored.state === 'lost') throw responseLost();
      if (now() - Date.parse(stored.updated_at) > ABANDONED_MS) {
        // Its first request died mid-way. If any of its work committed, running it again would
        // do that twice; if none did, release the record (unless the work commits meanwhile)
        // and claim it afresh.
        if (stored.state === 'applied') throw responseLost();
        await db
          .deleteFrom('idempotency_keys')
          .where('id', '=', stored.id)
          .where('state', '=', 'in_progress')
          .where('updated_at', '=', stored.updated_at)
          .execute();
        continue;
      }
      if (now() > deadline) {
        throw new AppError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still being processed; retry later');
      }
      await sleep(POLL_MS);
    }
  }

  /** Run before COMMIT by each transaction that writes for the request owning record `id`. */
  function markApplied(id: number): (run: RunStatement) => Promise<void> {
    return async (run) => {
      const marked = await run(
        db
          .updateTable('idempotency_keys')
          .set({ state: 'applied', updated_at: new Date(now()).toISOString() })
          .where('id', '=', id)
          .where('state', 'in', ['in_progress', 'applied'])
          .compile(),
      );
      // A retry took the record over, believing this request dead: the retry does the work.
      if (marked.numAffectedRows !== 1n) {
        throw new AppError('idempotency_key_in_progress', 'A retry with this Idempotency-Key took this request over; this one did nothing');
      }
    };
  }

  // A callback hook: the handler runs inside `done`, so inside the write scope as well.
  app.addHook('preHandler', (request, reply, done) => {
    claim(request, reply).then((id) => {
      if (id === undefined) {
        done();
        return;
      }
      const scope: WriteScope = { beforeCommit: markApplied(id) };
      request.idempotencyRecord = { id, scope };
      runInWriteScope(scope, done);
    }, done);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const record = request.idempotencyRecord;
    if (record === undefined) return payload;
    request.idempotencyRecord = undefined;
    // The answer is decided: writes from here on (work the request left running) are not its work.
    record.scope.beforeCommit = undefined;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      // No response to store: release the record for a retry to run the request, unless some
      // of its work committed, which a retry must not do again.
      const released = await db.deleteFrom('idempotency_keys').where('id', '=', record.id).where('state', '=', 'in_progress').executeTakeFirst();
      if (released.numDeletedRows === 0n) {
        await db
          .updateTable('idempotency_keys')
          .set({ state: 'lost', updated_at: new Date(now()).toISOString() })
          .where('id', '=', record.id)
          .where('state', '=', 'applied')
          .execute();
      }
      return payload;
    }
    await db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        response_status: reply.statusCode,
        response_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        response_body: await storedReplies.store(payload),
        updated_at: new Date(now()).toISOString(),
      })
      .where('id', '=', record.id)
      .execute();
    return payload;
  });
}

import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { lockedTransaction } from '../../src/db/transactions.js';
import { AppError } from '../../src/core/errors.js';
import { DIALECTS, useTestApp } from '../helper.js';

const ROOT = '/booking-api/v1';

describe.each(DIALECTS)('Idempotency-Key (%s)', (dialect) => {
  const runs = new Map<string, number>();
  const count = (name: string): number => {
    const n = (runs.get(name) ?? 0) + 1;
    runs.set(name, n);
    return n;
  };
  let failNext = false;

  /** Where a run of /test-writes stops as if its process died there, until `resume()`. */
  interface Stop {
    at: 'before-commit' | 'after-commit' | 'fail-after-commit';
    reached: Promise<void>;
    resume(): void;
  }
  const stops = new Map<string, Stop & { arrive(): void; resumed: Promise<void> }>();
  const stopNextRun = (name: string, at: Stop['at']): Stop => {
    let arrive = () => {};
    let resume = () => {};
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const stop = { at, reached, resume, arrive, resumed };
    stops.set(name, stop);
    return stop;
  };
  const hold = async (stop: (Stop & { arrive(): void; resumed: Promise<void> }) | undefined, at: Stop['at']) => {
    if (stop?.at !== at) return;
    stop.arrive();
    await stop.resumed;
  };
  const WAYS = ['locked', 'plain', 'alone'] as const;

  const t = useTestApp(dialect, {}, {
    beforeReady: (app) => {
      const body = Type.Object({ name: Type.String() });
      app.post(`${ROOT}/test-things`, { config: { permission: 'any' }, schema: { body } }, async (request, reply) => {
        const run = count(request.body.name);
        // A little work in flight, so that concurrent duplicates really overlap.
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (failNext) {
          failNext = false;
          throw new Error('boom');
        }
        return reply.status(201).send({ name: request.body.name, run });
      });
      // Work the database keeps: one settings row per run, written by a locked transaction, a
      // plain one or a lone statement; the answer tells the state of the request's own record.
      const writeBody = Type.Object({ name: Type.String(), way: Type.Union(WAYS.map((w) => Type.Literal(w))) });
      app.post(`${ROOT}/test-writes`, { config: { permission: 'any' }, schema: { body: writeBody } }, async (request, reply) => {
        const { name, way } = request.body;
        const stop = stops.get(name);
        stops.delete(name);
        await hold(stop, 'before-commit');
        const row = { key: `work:${name}:${count(`work:${name}`)}`, value: `work:${name}`, updated_at: new Date().toISOString() };
        if (way === 'locked') await lockedTransaction(app.db, ['test'], (trx) => trx.insertInto('settings').values(row).execute());
        else if (way === 'plain') await app.db.transaction().execute((trx) => trx.insertInto('settings').values(row).execute());
        else await app.db.insertInto('settings').values(row).execute();
        await hold(stop, 'after-commit');
        if (stop?.at === 'fail-after-commit') throw new Error('boom after the commit');
        const key = request.headers['idempotency-key'];
        const own = key === undefined ? undefined : await recordOf(String(key));
        return reply.status(201).send({ name, state: own?.state ?? null });
      });
      app.put(`${ROOT}/test-things/:id`, { config: { permission: 'any' } }, async () => {
        const run = count('put');
        if (run === 1) throw new AppError('validation_failed', 'first put refused');
        return { run };
      });
    },
  });

  const post = async (key: string, idempotencyKey: string | undefined, name: string) =>
    t.app.inject({
      method: 'POST',
      url: `${ROOT}/test-things`,
      headers: { 'x-api-key': key, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      payload: { name },
    });

  const recordOf = (idempotencyKey: string) =>
    t.db.selectFrom('idempotency_keys').select(['id', 'state']).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
  /** Rows the runs of /test-writes named `name` committed. */
  const work = async (name: string) =>
    (await t.db.selectFrom('settings').select('key').where('value', '=', `work:${name}`).execute()).length;
  const write = (key: string, idempotencyKey: string | undefined, name: string, way: (typeof WAYS)[number] = 'locked') =>
    t.app.inject({
      method: 'POST',
      url: `${ROOT}/test-writes`,
      headers: { 'x-api-key': key, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      payload: { name, way },
    });
  /** Time passes: the request that holds the record is long past the point where it counts as dead. */
  const age = (idempotencyKey: string) =>
    t.db
      .updateTable('idempotency_keys')
      .set({ updated_at: new Date(Date.now() - 10 * 60_000).toISOString() })
      .where('idempotency_key', '=', idempotencyKey)
      .execute();

  it('replays the stored response to a retry without doing the work again', async () => {
    const key = await t.key();
    const first = await post(key, 'retry-1', 'a');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ name: 'a', run: 1 });
    const retry = await post(key, 'retry-1', 'a');
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual({ name: 'a', run: 1 });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(runs.get('a')).toBe(1);
  });

  it('takes a retry with its fields in another order for the same request', async () => {
    const key = await t.key();
    const send = (payload: string) =>
      t.app.inject({ method: 'POST', url: `${ROOT}/test-writes`, headers: { 'x-api-key': key, 'idempotency-key': 'order-1', 'content-type': 'application/json' }, payload });
    expect((await send('{"name":"ordered","way":"plain"}')).statusCode).toBe(201);
    const retry = await send('{ "way": "plain", "name": "ordered" }');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await work('ordered')).toBe(1);
  });

  it('runs requests without the header every time', async () => {
    const key = await t.key();
    await post(key, undefined, 'b');
    await post(key, undefined, 'b');
    expect(runs.get('b')).toBe(2);
  });

  it('refuses the same key with a different body: 422 idempotency_key_reused', async () => {
    const key = await t.key();
    await post(key, 'reuse-1', 'c');
    const reused = await post(key, 'reuse-1', 'something else');
    expect(reused.statusCode).toBe(422);
    expect(reused.json().error.code).toBe('idempotency_key_reused');
    expect(runs.get('something else')).toBeUndefined();
  });

  it('runs concurrent duplicates once, and answers all of them alike', async () => {
    const key = await t.key();
    const responses = await Promise.all(Array.from({ length: 6 }, () => post(key, 'concurrent-1', 'd')));
    expect(runs.get('d')).toBe(1);
    for (const res of responses) {
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ name: 'd', run: 1 });
    }
  });

  it('scopes keys to their API key', async () => {
    await post(await t.key(), 'shared-name', 'e');
    const other = await post(await t.key(), 'shared-name', 'e');
    expect(other.json()).toEqual({ name: 'e', run: 2 });
  });

  it('stores client errors but not server errors, so a retry after a 5xx runs again', async () => {
    const key = await t.key();
    failNext = true;
    const failed = await post(key, 'after-500', 'f');
    expect(failed.statusCode).toBe(500);
    const retry = await post(key, 'after-500', 'f');
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual({ name: 'f', run: 2 });

    const put = (idem: string) =>
      t.app.inject({ method: 'PUT', url: `${ROOT}/test-things/1`, headers: { 'x-api-key': key, 'idempotency-key': idem }, payload: {} });
    expect((await put('put-1')).statusCode).toBe(422);
    const replayed = await put('put-1');
    expect(replayed.statusCode).toBe(422);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(runs.get('put')).toBe(1);
  });

  it.each(WAYS)(
    'does not run again a request whose work committed (%s) but whose process died before answering',
    async (way) => {
      const key = await t.key();
      const idem = `died-after-commit-${way}`;
      const name = `after-${way}`;
      const stop = stopNextRun(name, 'after-commit');
      const first = write(key, idem, name, way);
      await stop.reached;
      // The process is gone here: its work is committed, its response never stored.
      expect(await work(name)).toBe(1);
      expect((await recordOf(idem))?.state).toBe('applied');
      await age(idem);

      const retry = await write(key, idem, name, way);
      expect(retry.statusCode).toBe(409);
      expect(retry.json().error.code).toBe('idempotency_response_lost');
      expect(await work(name)).toBe(1);

      // Had it only been slow, its answer is stored when it comes and replayed from then on.
      stop.resume();
      expect((await first).statusCode).toBe(201);
      const replayed = await write(key, idem, name, way);
      expect(replayed.statusCode).toBe(201);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(await work(name)).toBe(1);
    },
  );

  it('runs a request again whose process died before any of its work committed, and never lets the first run commit after that', async () => {
    const key = await t.key();
    const stop = stopNextRun('before', 'before-commit');
    const first = write(key, 'died-before-commit', 'before');
    await stop.reached;
    expect((await recordOf('died-before-commit'))?.state).toBe('in_progress');
    await age('died-before-commit');

    const retry = await write(key, 'died-before-commit', 'before');
    expect(retry.statusCode).toBe(201);
    expect(await work('before')).toBe(1);

    // The first run was only frozen: when it wakes, the retry owns the key and did the work.
    stop.resume();
    const late = await first;
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('idempotency_key_in_progress');
    expect(await work('before')).toBe(1);
    const replayed = await write(key, 'died-before-commit', 'before');
    expect(replayed.statusCode).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
  });

  it('does not run again a request that failed (5xx) after its work committed', async () => {
    const key = await t.key();
    stopNextRun('failed', 'fail-after-commit');
    const failed = await write(key, 'failed-after-commit', 'failed');
    expect(failed.statusCode).toBe(500);
    const retry = await write(key, 'failed-after-commit', 'failed');
    expect(retry.statusCode).toBe(409);
    expect(retry.json().error.code).toBe('idempotency_response_lost');
    expect(await work('failed')).toBe(1);
  });

  it("marks each request's own record as its work commits, among concurrent requests with and without keys", async () => {
    const key = await t.key();
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => write(key, i % 2 === 0 ? `concurrent-write-${i}` : undefined, `concurrent-${i}`, WAYS[i % WAYS.length])),
    );
    for (const [i, res] of responses.entries()) {
      expect(res.statusCode).toBe(201);
      expect(res.json().state).toBe(i % 2 === 0 ? 'applied' : null);
    }
    const records = await t.db.selectFrom('idempotency_keys').select('state').where('idempotency_key', 'like', 'concurrent-write-%').execute();
    expect(records.map((r) => r.state)).toEqual(Array(12).fill('done'));
  });

  it('refuses a key over 255 characters', async () => {
    const res = await post(await t.key(), 'k'.repeat(256), 'g');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect(runs.get('g')).toBeUndefined();
    expect((await post(await t.key(), 'k'.repeat(255), 'g')).statusCode).toBe(201);
  });

  it('is documented on every POST and PUT in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ url: `${ROOT}/openapi.json` })).json();
    const post = doc.paths[`${ROOT}/test-things`].post;
    expect(post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]));
    // The answers a retry can get, in the route's own error style.
    for (const [path, method, style] of [
      ['/bookings', 'post', 'ErrorStyle1'],
      ['/bookings/bulk', 'post', 'ErrorStyle1'],
      ['/customers/{id}', 'put', 'ErrorStyle3'],
      ['/payments', 'post', 'ErrorStyle2'],
    ] as const) {
      const responses = doc.paths[`${ROOT}${path}`][method].responses;
      for (const status of ['409', '422']) {
        expect(JSON.stringify(responses[status]), `${method} ${path} ${status}`).toContain(style);
      }
    }
  });
});

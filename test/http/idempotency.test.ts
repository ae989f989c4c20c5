import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/http/errors.js';
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
  });
});

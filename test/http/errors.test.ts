import { connect, type AddressInfo } from 'node:net';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { DIALECTS, useTestApp } from '../helper.js';

const ROOT = '/booking-api/v1';

describe.each(DIALECTS)('errors and envelopes (%s)', (dialect) => {
  const t = useTestApp(dialect, {}, {
    beforeReady: (app) => {
      const body = Type.Object({ name: Type.String({ minLength: 2 }), count: Type.Integer({ minimum: 1 }) });
      app.post(`${ROOT}/test-echo`, { config: { permission: 'any' }, schema: { body } }, async (request) => request.body);
      app.get(
        `${ROOT}/test-list`,
        {
          config: { permission: 'any', validationErrorCode: 'invalid_parameters' },
          schema: { querystring: Type.Object({ per_page: Type.Optional(Type.Integer({ maximum: 100 })) }) },
        },
        async () => ({ ok: true }),
      );
      const fail = (style: 1 | 2 | 3) => ({
        config: { permission: 'any' as const, errorStyle: style },
        handler: async () => {
          throw new AppError('customer_not_found', 'Customer 9 was not found');
        },
      });
      app.get(`${ROOT}/test-style-1`, fail(1));
      app.get(`${ROOT}/test-style-2`, fail(2));
      app.get(`${ROOT}/test-style-3`, fail(3));
      app.get(`${ROOT}/test-crash`, { config: { permission: 'any', errorStyle: 1 } }, async () => {
        throw new Error('SELECT secret FROM internals at /work/main/src/x.ts:1');
      });
      app.get(`${ROOT}/test-crash-2`, { config: { permission: 'any', errorStyle: 2 } }, async () => {
        throw new Error('SELECT secret FROM internals');
      });
      app.post(`${ROOT}/test-dangling`, { config: { permission: 'any', errorStyle: 2 } }, async () => {
        await app.db.insertInto('agent_locations').values({ agent_id: 999_999, location_id: 999_999 }).execute();
        return { ok: true };
      });
    },
  });

  const headers = async () => ({ 'x-api-key': await t.key(), 'content-type': 'application/json' });

  it('renders style 1 by default', async () => {
    const res = await t.app.inject({ url: `${ROOT}/test-style-1`, headers: await headers() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 'error', error: { code: 'customer_not_found', message: 'Customer 9 was not found' } });
  });

  it('marks every API answer, error or not, as not to be stored or sniffed', async () => {
    for (const res of [await t.app.inject({ url: `${ROOT}/status`, headers: await headers() }), await t.app.inject({ url: `${ROOT}/status` })]) {
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('renders style 2 where the route declares it (payments)', async () => {
    const res = await t.app.inject({ url: `${ROOT}/test-style-2`, headers: await headers() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'Customer 9 was not found' });
  });

  it('renders style 3 where the route declares it (customer update)', async () => {
    const res = await t.app.inject({ url: `${ROOT}/test-style-3`, headers: await headers() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'customer_not_found', message: 'Customer 9 was not found', data: { status: 404 } });
  });

  it('says in words what a format or a list of values asks for, never a regular expression', async () => {
    const get = async (url: string) => t.app.inject({ url: `${ROOT}${url}`, headers: await headers() });
    expect((await get('/customers?include=stats,avatars')).json().error.details).toEqual({
      include: 'must be a comma-separated list of: bookings, stats, custom_fields, notes, avatar',
    });
    expect((await get('/customers?created_at=2026-13')).json().error.details).toEqual({
      created_at: 'must be the start of a date and time: YYYY, YYYY-MM or YYYY-MM-DD, then optionally HH, HH:MM or HH:MM:SS',
    });
    expect((await get('/availability?service_id=1&date=2026/12/01')).json().error.details).toEqual({ date: 'must be a date as YYYY-MM-DD' });
    const customer = await t.app.inject({ method: 'POST', url: `${ROOT}/customers`, headers: await headers(), payload: { first_name: 'Ann', last_name: 'Lee', gender: 'x' } });
    expect(customer.json().error.details).toEqual({ gender: 'must be one of male, female, other, prefer_not_to_say' });
    const coupon = await t.app.inject({ method: 'POST', url: `${ROOT}/coupons`, headers: await headers(), payload: { code: 'A B', name: ' ' } });
    expect(coupon.json().error.details).toEqual({ code: 'must not contain spaces or any of / ? # %', name: 'must not be blank' });
    // A field that may be cleared with null: the complaint of the branch that is not null.
    const dated = await t.app.inject({ method: 'POST', url: `${ROOT}/coupons`, headers: await headers(), payload: { code: 'D1', name: 'D', active_from: '2026-02-30' } });
    expect(dated.json().error.details).toEqual({ active_from: 'must be a date as YYYY-MM-DD' });
  });

  it('a write the foreign keys refuse is 422 data_inconsistency in the route style, naming no table', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${ROOT}/test-dangling`, headers: await headers(), payload: {} });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ success: false, error: 'A record this request refers to was removed while it ran; repeat the request to see which' });
  });

  it('renders authentication failures in the route style too', async () => {
    const res = await t.app.inject({ url: `${ROOT}/test-style-2` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, error: expect.any(String) });
  });

  it('answers schema violations with 400 invalid_request and details per field', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${ROOT}/test-echo`, headers: await headers(), payload: { name: 'x' } });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual({ name: expect.any(String), count: 'is required' });
  });

  it('names bad query parameters, with the code the route declares', async () => {
    const res = await t.app.inject({ url: `${ROOT}/test-list?per_page=101`, headers: await headers() });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_parameters', details: { per_page: expect.any(String) } });
  });

  it('accepts digit strings where integers are expected', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${ROOT}/test-echo`, headers: await headers(), payload: { name: 'ok', count: '3' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'ok', count: 3 });
  });

  it('answers a body that is not JSON with 400 invalid_request', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${ROOT}/test-echo`, headers: await headers(), payload: '{"name": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('answers a body of another media type with 400 invalid_request', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${ROOT}/test-echo`,
      headers: { ...(await headers()), 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('answers a body over 1 MiB with 413 invalid_request', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(1024 * 1024), count: 1 });
    const res = await t.app.inject({ method: 'POST', url: `${ROOT}/test-echo`, headers: await headers(), payload });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('invalid_request');
  });

  it('answers an unknown route with a JSON 404 not_found', async () => {
    const res = await t.app.inject({ url: `${ROOT}/no-such-thing`, headers: await headers() });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json().error.code).toBe('not_found');
  });

  it('answers a known path asked with another method with 405 and the methods it takes in Allow', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: `${ROOT}/bookings/1`, headers: await headers(), payload: '{}' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    expect(res.json()).toEqual({ status: 'error', error: { code: 'method_not_allowed', message: `${ROOT}/bookings/1 does not take PATCH; it takes DELETE, GET, HEAD, PUT` } });
    const payments = await t.app.inject({ method: 'DELETE', url: `${ROOT}/payments`, headers: await headers() });
    expect(payments.statusCode).toBe(405);
    expect(payments.headers.allow).toBe('GET, HEAD, POST');
    expect(payments.json()).toMatchObject({ success: false });
    // A path no route takes stays 404, whatever the method.
    expect((await t.app.inject({ method: 'PATCH', url: `${ROOT}/bookings/1/nothing`, headers: await headers() })).statusCode).toBe(404);
  });

  it('takes an empty body sent as JSON for no body: a DELETE goes through, a route that needs one names it', async () => {
    const agent = await t.app.inject({ method: 'POST', url: `${ROOT}/agents`, headers: await headers(), payload: { first_name: 'Empty', last_name: 'Body', email: `empty.${dialect}@example.test` } });
    expect(agent.statusCode, agent.body).toBe(201);
    const gone = await t.app.inject({ method: 'DELETE', url: `${ROOT}/agents/${agent.json().data.id}`, headers: await headers(), payload: '' });
    expect(gone.statusCode, gone.body).toBe(200);
    const missing = await t.app.inject({ method: 'DELETE', url: `${ROOT}/agents/999999`, headers: await headers(), payload: '' });
    expect(missing.statusCode).toBe(404);
    const needed = await t.app.inject({ method: 'POST', url: `${ROOT}/test-echo`, headers: await headers(), payload: '' });
    expect(needed.statusCode).toBe(400);
    expect(needed.json().error.code).toBe('invalid_request');
  });

  it('answers a path the router cannot take in the same envelope: bad percent-encoding 400, a long segment 414', async () => {
    for (const [url, status, message] of [
      [`${ROOT}/customers/%E0%A4%A`, 400, 'The path is not valid percent-encoding'],
      [`${ROOT}/customers/${'9'.repeat(101)}`, 414, 'A path segment is too long'],
    ] as const) {
      const res = await t.app.inject({ url, headers: await headers() });
      expect(res.statusCode, url).toBe(status);
      expect(res.json(), url).toEqual({ status: 'error', error: { code: 'invalid_request', message } });
      expect(res.headers['x-request-id'], url).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Under /payments, in the payments' style 2.
    for (const [url, status, message] of [
      [`${ROOT}/payments/%E0%A4%A`, 400, 'The path is not valid percent-encoding'],
      [`${ROOT}/payments/${'x'.repeat(5000)}`, 414, 'A path segment is too long'],
    ] as const) {
      const res = await t.app.inject({ method: 'PUT', url, headers: await headers(), payload: {} });
      expect(res.statusCode, url).toBe(status);
      expect(res.json(), url).toEqual({ success: false, error: message });
    }
  });

  it('answers an unexpected failure with 500 server_error and nothing internal', async () => {
    for (const [path, expected] of [
      ['test-crash', { status: 'error', error: { code: 'server_error', message: 'Internal server error' } }],
      ['test-crash-2', { success: false, error: 'Failed to process the payment request' }],
    ] as const) {
      const res = await t.app.inject({ url: `${ROOT}/${path}`, headers: await headers() });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual(expected);
      expect(res.body).not.toMatch(/SELECT|secret|\.ts|at /);
    }
  });

  it('gives every response an X-Request-Id', async () => {
    const ids = new Set<string>();
    for (const url of [`${ROOT}/status`, `${ROOT}/no-such-thing`, '/healthz']) {
      const res = await t.app.inject({ url });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(String(res.headers['x-request-id']));
    }
    expect(ids.size).toBe(3);
  });

  it("answers what Node's parser refuses in the same envelope, with an X-Request-Id", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const cases = [
      [`GET ${ROOT}/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      [`POST ${ROOT}/bookings HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`, 400],
    ] as const;
    for (const [request, status] of cases) {
      const answer = await raw(request);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
      expect(JSON.parse(body)).toEqual({ status: 'error', error: { code: 'invalid_request', message: expect.any(String) } });
    }
  });

  it('lets a client still sending an oversized body receive its 413: the rest is read and dropped, not cut off', async () => {
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const key = (await headers())['x-api-key'];
    const body = Buffer.alloc(8 * 1024 * 1024, 'a');
    for (const framing of ['content-length', 'chunked'] as const) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
        socket.on('close', () => resolve(received));
        // Without the drain the server closes with the body unread, and writing fails with EPIPE.
        socket.on('error', reject);
        const head = `POST ${ROOT}/test-echo HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n`;
        if (framing === 'content-length') socket.end(Buffer.concat([Buffer.from(`${head}Content-Length: ${body.length}\r\n\r\n`), body]));
        else socket.end(Buffer.concat([Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]));
      });
      expect(answer, framing).toMatch(/^HTTP\/1.1 413 /);
      expect(answer, framing).toContain('"Request body is larger than 1 MiB"');
    }
  });
});

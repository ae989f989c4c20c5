import type { RouteShorthandOptions } from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helper.js';
import { ResponseContract, takeUnclaimedFailures, type ObservedResponse } from './response-contract.js';

const json = 'application/json; charset=utf-8';
const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          200: { content: { 'application/json': { schema: { type: 'object', required: ['id', 'on'], properties: { id: { type: 'integer' }, on: { type: 'string', format: 'date' } } } } } },
          404: error,
        },
      },
    },
    '/uploads': { post: { responses: { 201: {}, 413: error } } },
  },
  components: { schemas: { Error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } } },
};

const observed = (response: Partial<ObservedResponse>): ObservedResponse => ({
  method: 'GET',
  route: '/things/:id',
  url: '/things/7',
  status: 200,
  contentType: json,
  body: '{"id":7,"on":"2030-01-07"}',
  ...response,
});

describe('the response contract', () => {
  const contract = new ResponseContract(document);

  it('passes an answer that fits its operation, status and schema, $refs and formats included', () => {
    expect(contract.check(observed({}))).toBeUndefined();
    expect(contract.check(observed({ status: 404, body: '{"code":"thing_not_found"}' }))).toBeUndefined();
  });

  it('names the method, url, status and each schema error of an answer that does not fit', () => {
    expect(contract.check(observed({ body: '{"id":"7","on":"7 Jan"}' }))).toBe(
      'Response breaks the OpenAPI document: GET /things/7 answered 200: the body does not fit the declared schema:\n' +
        '  /id must be integer {"type":"integer"}\n' +
        '  /on must match format "date" {"format":"date"}',
    );
    expect(contract.check(observed({ status: 404, body: '{"message":"gone"}' }))).toMatch(/answered 404: .*\n {2}\(body\) must have required property 'code'/);
  });

  it('refuses a status the operation does not declare', () => {
    expect(contract.check(observed({ status: 409, body: '{"code":"conflict"}' }))).toBe(
      'Response breaks the OpenAPI document: GET /things/7 answered 409: status 409 is not declared (declared: 200, 404)',
    );
  });

  it('excuses a transport status only while no operation declares it', () => {
    const tooLarge = observed({ status: 413, body: '{"code":"invalid_request"}' });
    expect(contract.check(tooLarge)).toMatch(/status 413 is not declared/);
    const nowhere = new ResponseContract({ ...document, paths: { '/things/{id}': document.paths['/things/{id}'] } });
    expect(nowhere.check(tooLarge)).toBeUndefined();
  });

  it('leaves alone answers that are not JSON and routes outside the document', () => {
    expect(contract.check(observed({ contentType: 'text/csv', body: 'id\n7' }))).toBeUndefined();
    expect(contract.check(observed({ route: '/manage/:key', body: '{}' }))).toBeUndefined();
    expect(contract.check(observed({ route: undefined, status: 404, body: '{}' }))).toBeUndefined();
  });
});

// The harness itself, not the service: one engine shows it.
describe('the response contract in the test app', () => {
  const ROOT = '/booking-api/v1';
  // Options typed loosely leave the reply untyped, so the handler may send a string.
  const drift: RouteShorthandOptions = { config: { permission: 'public' }, schema: { response: { 200: Type.Object({ id: Type.Integer() }) } } };
  const t = useTestApp('sqlite', {}, {
    beforeReady: (app) => {
      // A string body goes out as written, past the serializer that would otherwise coerce it to the schema.
      app.get(`${ROOT}/test-drift`, drift, async (_request, reply) => reply.type(json).send('{"id":"seven"}'));
      app.get(`${ROOT}/test-kept`, drift, async () => ({ id: 7 }));
    },
  });

  it('makes the inject of a drifting answer reject with the reason', async () => {
    expect((await t.app.inject({ url: `${ROOT}/test-kept` })).json()).toEqual({ id: 7 });
    await expect(t.app.inject({ url: `${ROOT}/test-drift` })).rejects.toThrow(
      'GET /booking-api/v1/test-drift answered 200: the body does not fit the declared schema:\n  /id must be integer',
    );
  });

  it('keeps a drifting answer to a request over the network for the test to fail on', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    expect((await fetch(`${address}${ROOT}/test-drift`)).status).toBe(200);
    expect(takeUnclaimedFailures(t.app)).toEqual([expect.stringContaining('GET /booking-api/v1/test-drift answered 200')]);
    expect(takeUnclaimedFailures(t.app)).toEqual([]);
  });
});

/**
 * Slow clients over raw sockets to a listening app: a request slower to arrive than its timeout
 * is answered 408 in the contract's envelope and its connection closed; connections beyond the
 * cap are closed as they arrive. The timeouts are set small here; every wait on the server is
 * bounded by the test's own timeout, so a server that never cuts the client fails the test.
 */
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp } from '../helper.js';
import { open, type Exchange } from './raw-socket.js';

// Long enough for the 413 to come first, under load too.
const REQUEST_TIMEOUT_MS = 1500;
const HEADERS_TIMEOUT_MS = 400;
const MAX_CONNECTIONS = 3;
/** How often a slow client sends its next byte: well inside every timeout, so that only the total is late. */
const TRICKLE_MS = 50;


/** Sends `text` one byte every TRICKLE_MS until the server closes the connection or the text ends. */
function trickle(socket: Socket, text: string): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= text.length || socket.destroyed || !socket.writable) clearInterval(timer);
    else socket.write(text[sent++] as string);
  }, TRICKLE_MS);
  socket.once('close', () => clearInterval(timer));
}

function parse(answer: string): { head: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { head, body: JSON.parse(body) };
}

const TIMED_OUT = { status: 'error', error: { code: 'invalid_request', message: 'The request took too long to arrive' } };

describe.each(DIALECTS)('slow clients (%s)', (dialect) => {
  const t = useTestApp(dialect, {
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  });

  async function port(): Promise<number> {
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
    return (t.app.server.address() as AddressInfo).port;
  }

  it('answers a body trickled slower than the request timeout with 408 in the envelope, and closes the connection', async () => {
    const key = await t.key();
    const { socket, closed } = open(await port());
    const body = JSON.stringify({ first_name: 'Slow', last_name: 'Client', email: 'slow@example.test' });
    socket.write(
      `POST /booking-api/v1/customers HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    trickle(socket, body);
    const { head, body: answer } = parse(await closed);
    expect(head).toMatch(/^HTTP\/1.1 408 /);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/i);
    expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}(\r\n|$)/i);
    expect(answer).toEqual(TIMED_OUT);
  });

  it('answers headers trickled slower than the header timeout with 408, and a connection that sends nothing as well', async () => {
    const slowHeaders = open(await port());
    trickle(slowHeaders.socket, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(200)}\r\n\r\n`);
    const silent = open(await port());
    for (const answer of await Promise.all([slowHeaders.closed, silent.closed])) {
      const { head, body } = parse(answer);
      expect(head).toMatch(/^HTTP\/1.1 408 /);
      expect(body).toEqual(TIMED_OUT);
    }
  });

  it('writes nothing more on a connection whose oversized body was answered 413 when its time is up', async () => {
    const key = await t.key();
    const { socket, closed } = open(await port());
    socket.write(`POST /booking-api/v1/customers HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{`);
    trickle(socket, ' '.repeat(1000));
    const answer = await closed;
    expect(answer).toMatch(/^HTTP\/1.1 413 /);
    // One answer only: a 408 behind it would be read as the answer to the client's next request.
    expect(answer.match(/HTTP\/1.1 /g)).toHaveLength(1);
  });

  it(`closes connections beyond ${MAX_CONNECTIONS} as they arrive, and takes new ones once others close`, async () => {
    const target = await port();
    // Kept-alive connections that have had their answer: open, idle, and known to the server.
    const held: Exchange[] = [];
    const serverSides: Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      t.app.server.once('connection', (socket: Socket) => serverSides.push(socket));
      const exchange = open(target);
      const answered = new Promise<void>((resolve) => exchange.socket.once('data', () => resolve()));
      exchange.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await answered;
      held.push(exchange);
    }
    const refused = open(target);
    expect(await refused.closed).toBe('');

    // Counted free once the server's end has closed, not the client's.
    const serverClosed = new Promise((resolve) => serverSides[0]?.once('close', resolve));
    held[0]?.socket.destroy();
    await serverClosed;
    const taken = open(target);
    taken.socket.end('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(await taken.closed).toMatch(/^HTTP\/1.1 200 /);
    for (const exchange of held) exchange.socket.destroy();
  });
});

import { connect, type Socket } from 'node:net';

/** A raw TCP client of a listening app, for what an HTTP client library hides. */
export interface Exchange {
  socket: Socket;
  received: () => string;
  /** Everything the server sent, once it has closed the connection. */
  closed: Promise<string>;
}

export function open(port: number): Exchange {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  // A reset after the answer (the server closing while the client still sends) is no failure:
  // what was received is what the assertions judge.
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  return { socket, received: () => received, closed };
}

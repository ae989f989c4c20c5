import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The answer to each connection's latest request, from Node's public events. */
const answers = new WeakMap<Duplex, ServerResponse>();

/**
 * Whether the request still arriving on the connection has been answered already (a 413 sent
 * while the rest of its body is read and dropped): nothing more may be written on it then.
 */
export function isAnswered(socket: Duplex): boolean {
  const answer = answers.get(socket);
  return answer !== undefined && answer.headersSent && !answer.req.complete;
}

/** What a shutdown does with one open connection. */
export type ConnectionState =
  /** A request received in full and not yet answered: it may finish. */
  | { kind: 'in-flight'; answer: ServerResponse }
  /** A request whose headers or body are still arriving, or none yet: nothing of it has run. */
  | { kind: 'arriving'; request: IncomingMessage | undefined };

/** The server's open connections and where each stands, for a shutdown that waits only on work begun. */
export class Connections {
  private readonly open = new Set<Duplex>();

  constructor(server: Server) {
    server.on('connection', (socket: Duplex) => {
      this.open.add(socket);
      socket.once('close', () => this.open.delete(socket));
    });
    server.on('request', (request: IncomingMessage, answer: ServerResponse) => answers.set(request.socket, answer));
  }

  /**
   * Every open connection with its state. Call it after idle keep-alive connections are closed:
   * one whose last answer is finished counts as arriving, its next request begun.
   */
  states(): [Duplex, ConnectionState][] {
    return [...this.open].map((socket) => {
      const answer = answers.get(socket);
      if (answer === undefined || answer.writableFinished) return [socket, { kind: 'arriving', request: undefined }];
      return [socket, answer.req.complete && !isAnswered(socket) ? { kind: 'in-flight', answer } : { kind: 'arriving', request: answer.req }];
    });
  }
}

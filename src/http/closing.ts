import type { App } from '../core/app.js';
import { Connections } from './connections.js';
import { refuseArrivingWhileClosing, refuseWhileClosing } from './error-handler.js';

/**
 * A shutdown that waits for work begun and for nothing else. When the app closes, requests
 * received in full finish and their connections close once answered; a request still arriving
 * (headers or body, however slowly) is refused with 503 at once and its connection closed, as is
 * one sent on a connection whose answer is still being written: nothing of them has run, so a
 * client may send them again. A slow client therefore never holds the shutdown, which the
 * timeouts no longer guard (Node stops checking them once the server closes).
 */
export function registerGracefulClose(app: App): void {
  const connections = new Connections(app.server);
  let closing = false;
  // A connection answered while closing is idle again: Node closes idle ones only when asked. It
  // does so after its own 'finish' listener has released the connection.
  const closeWhenIdle = () => setImmediate(() => app.server.closeIdleConnections());
  app.addHook('preClose', (done) => {
    closing = true;
    app.server.closeIdleConnections();
    let inFlight = 0;
    let refused = 0;
    for (const [socket, state] of connections.states()) {
      if (state.kind === 'in-flight') {
        inFlight += 1;
        state.answer.once('finish', closeWhenIdle);
      } else {
        refused += 1;
        refuseArrivingWhileClosing(socket, state.request?.url);
      }
    }
    app.log.info({ inFlight, refused }, `closing: ${inFlight} requests in flight may finish, ${refused} still arriving refused`);
    done();
  });
  // Fastify's own 503 while closing (return503OnClosing) is not the contract's envelope.
  app.addHook('onRequest', (request, reply, done) => {
    if (closing) refuseWhileClosing(request, reply);
    else done();
  });
}

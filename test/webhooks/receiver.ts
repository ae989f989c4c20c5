import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next answers are: a status, or 'hold' (no answer until close). Then 204. */
  answers: (number | 'hold')[];
  close(): Promise<void>;
}

/** A webhook receiver on this machine, as an integrator's endpoint: it records every request. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: (number | 'hold')[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? 204;
      if (answer === 'hold') held.push(response);
      else response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 300 ? `refused with ${answer}` : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

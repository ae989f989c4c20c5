import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../bench/processes.js';

/** A Redis of its own on a free port, without persistence (as the outage runs had it). */
export class RedisServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(dir: string): Promise<RedisServer> {
    const port = await freePort();
    const child = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const server = new RedisServer(child, `redis://127.0.0.1:${port}`);
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await accepts(port)) return server;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await server.stop();
    throw new Error(`redis-server did not listen on port ${port}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

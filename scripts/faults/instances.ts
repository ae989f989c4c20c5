import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { freePort } from '../../bench/processes.js';

/** pino's numeric levels: 40 warn, 50 error, 60 fatal. */
const WARN = 40;

export interface LogLine {
  at: number;
  /** pino level; 0 for a line that is not pino's JSON (a crash on stderr, say). */
  level: number;
  message: string;
}

export interface Exit {
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * One `node dist/server.js` on a port it keeps across restarts, so that clients find it again.
 * Every line it logs is kept with its time and level, to count what an outage writes.
 */
export class Instance {
  readonly logs: LogLine[] = [];
  readonly exits: Exit[] = [];
  /** How long each start took until /healthz answered. */
  readonly startupsMs: number[] = [];
  private child: ChildProcess | undefined;

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(name: string, env: Record<string, string>): Promise<Instance> {
    const instance = new Instance(name, await freePort(), env);
    await instance.start();
    return instance;
  }

  /** Spawns the process and resolves once it answers /healthz. */
  async start(): Promise<void> {
    const begun = Date.now();
    const child = spawn(process.execPath, ['dist/server.js'], {
      env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.once('exit', (code, signal) => this.exits.push({ at: Date.now(), code, signal }));
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => this.logs.push(parseLine(line)));
    }
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
      const answered = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (answered) {
        this.startupsMs.push(Date.now() - begun);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`${this.name} did not answer /healthz within 30 s: ${this.logs.slice(-3).map((l) => l.message).join(' | ')}`);
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends the signal and resolves with how the process ended, or undefined past the limit. */
  async signal(signal: NodeJS.Signals, limitMs = 60_000): Promise<Exit | undefined> {
    const child = this.child;
    if (!child || !this.running) return this.exits.at(-1);
    const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signalCode) => resolve({ at: Date.now(), code, signal: signalCode })));
    child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), limitMs)));
    const exit = await Promise.race([exited, limit]);
    clearTimeout(timer);
    return exit;
  }

  /** Lines logged in [from, to), by kind. */
  logCounts(from: number, to: number): { lines: number; warn: number; error: number; other: number } {
    const lines = this.logs.filter((l) => l.at >= from && l.at < to);
    return {
      lines: lines.length,
      warn: lines.filter((l) => l.level === WARN).length,
      error: lines.filter((l) => l.level > WARN).length,
      other: lines.filter((l) => l.level === 0).length,
    };
  }

  /** The most frequent messages at warn or above (or not pino's) in [from, to). */
  topMessages(from: number, to: number, count = 3): { message: string; times: number }[] {
    const tally = new Map<string, number>();
    for (const line of this.logs) {
      if (line.at < from || line.at >= to || (line.level !== 0 && line.level < WARN)) continue;
      tally.set(line.message, (tally.get(line.message) ?? 0) + 1);
    }
    return [...tally.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([message, times]) => ({ message, times }));
  }
}

function parseLine(line: string): LogLine {
  const at = Date.now();
  try {
    const parsed = JSON.parse(line) as { level?: unknown; msg?: unknown; err?: { message?: unknown } };
    if (typeof parsed.level === 'number') {
      const message = typeof parsed.msg === 'string' ? parsed.msg : '';
      const cause = typeof parsed.err?.message === 'string' ? `: ${parsed.err.message}` : '';
      return { at, level: parsed.level, message: `${message}${cause}`.slice(0, 160) };
    }
  } catch {
    // Not pino's JSON: kept as it is.
  }
  return { at, level: 0, message: line.slice(0, 160) };
}

import net from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import type { OutageLogger, Schedule } from '../src/core/outage.js';
import type { Db } from '../src/db/database.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const WARN = 40;
const INFO = 30;

/** Every line a pino logger writes to `stream`, parsed, and every line given to `logger`. */
export function captureLog(): {
  stream: Writable;
  logger: OutageLogger;
  lines: LogLine[];
  warnings(about: string): LogLine[];
  infos(about: string): LogLine[];
} {
  const lines: LogLine[] = [];
  const logger: OutageLogger = {
    warn: (fields, msg) => lines.push({ ...fields, level: WARN, msg }),
    info: (fields, msg) => lines.push({ ...fields, level: INFO, msg }),
  };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const matching = (level: number, about: string) => lines.filter((line) => line.level === level && line.msg.startsWith(about));
  return { stream, logger, lines, warnings: (about) => matching(WARN, about), infos: (about) => matching(INFO, about) };
}

/** A Schedule whose work runs only when the test says so. */
export function manualSchedule(): { schedule: Schedule; pending: () => number; runNext(): Promise<void> } {
  const queue: (() => Promise<void>)[] = [];
  return {
    schedule: (work) => {
      queue.push(work);
      return () => queue.splice(queue.indexOf(work), 1);
    },
    pending: () => queue.length,
    runNext: async () => {
      const work = queue.shift();
      if (!work) throw new Error('nothing scheduled');
      await work();
    },
  };
}

/**
 * A TCP proxy in front of PostgreSQL that the test turns into an outage: while refusing it takes
 * each connection and closes it at once (as a database restarting does), counting the attempts.
 */
export class RefusingProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private refusing = false;
  /** Connections refused so far. */
  refused = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      this.track(client);
      if (this.refusing) {
        this.refused += 1;
        client.destroy();
        return;
      }
      const upstream = this.track(net.connect(this.target.port, this.target.host));
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** The database goes away: open connections are cut, new ones refused. */
  refuse(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.refuse();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A URL to the database behind the proxy. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  private track(socket: net.Socket): net.Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  }
}

/**
 * SQLite answers a write past max_page_count with SQLITE_FULL, "database or disk is full",
 * exactly as it answers a full disk: a test fills its "disk" without root ('current': no page
 * more than the database has now, its free pages taken by a blob). The pragma holds for the
 * connection that runs it, so it runs inside a transaction, on the writing connection.
 */
export async function limitSqlitePages(db: Db, pages: 'current' | number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (pages !== 'current') {
      await sql.raw(`pragma max_page_count = ${pages}`).execute(trx);
      return;
    }
    const pragma = async (name: string) => (await sql.raw<Record<string, number>>(`pragma ${name}`).execute(trx)).rows[0]![name]!;
    await sql`create table if not exists free_pages_taken (pages blob not null)`.execute(trx);
    await sql`insert into free_pages_taken (pages) values (zeroblob(${(await pragma('freelist_count')) * (await pragma('page_size'))}))`.execute(trx);
    await sql.raw(`pragma max_page_count = ${await pragma('page_count')}`).execute(trx);
  });
}

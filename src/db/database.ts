import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, sql, type Driver, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { foldCase } from '../lib/text.js';
import { startCheckpointer } from './checkpointer.js';
import { allowDirectReads, statementName } from './prepared.js';
import { GroupCommitDriver, groupCommitDialect } from './sqlite-driver.js';
import { SqliteStorage } from './sqlite-storage.js';
import { withStatementCache } from './statement-cache.js';
import { DEFAULT_WORK_TIMEOUTS, type WorkTimeouts } from './work-timeouts.js';
import { withWriteScopes } from './write-scope.js';

export { DEFAULT_WORK_TIMEOUTS, type WorkKind, type WorkTimeouts } from './work-timeouts.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * Every table of the service. Empty here: each module declares its own tables into it (module
 * augmentation in the module's table.ts), so this layer knows no module.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface Database {}

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  /** For requests. */
  readonly db: Db;
  /** The same database for background jobs, with their bound. */
  readonly backgroundDb: Db;
  /** The same database for migrations and command-line commands, with their bound. */
  readonly migrationDb: Db;
  readonly dialect: Dialect;
  /** SQLite: whether its disk is full, and where its checkpoint failures are logged. */
  readonly storage?: SqliteStorage;
  /** Closes every connection; the handle is unusable afterwards. */
  destroy(): Promise<void>;
}

export function dialectOf(url: string): Dialect {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

/** The dialect of a database, or of a transaction or connection of it (they share its adapter). */
export function dialectOfDb(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** WAL pages at which the writing connection checkpoints by itself: only if the background checkpointer falls behind. */
const BACKSTOP_CHECKPOINT_PAGES = 10_000;

function sqliteFile(url: string): string {
  return url.slice('sqlite:'.length);
}

/** A connection to the database file with what every connection of the service needs. */
function connectSqlite(file: string, busyTimeoutMs: number): SQLite.Database {
  const database = new SQLite(file);
  closingOnFailure(database, () => {
    // A read meets a lock only while another process recovers the log: it waits instead of failing,
    // as long as a request may (the wait blocks the event loop, but it is rare and short).
    database.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // SQLite's own lower() folds ASCII only; PostgreSQL's folds every script, a character at a time.
    // Case-insensitive searches and sorts must treat rows alike on both engines ("émile" finds "Émile").
    database.function('lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? foldCase(value) : value));
  });
  return database;
}

/**
 * Runs the set-up that follows opening a connection, closing the connection if it fails (a file
 * that is not a database fails at its first pragma): the process may go on, as the CLI does.
 */
function closingOnFailure<T>(database: SQLite.Database, work: () => T): T {
  try {
    return work();
  } catch (error) {
    database.close();
    throw error;
  }
}

/** The writing connection and, for a file, one for reads outside transactions (see GroupCommitDriver). */
function openSqlite(file: string, busyTimeoutMs: number): { writer: SQLite.Database; reader: SQLite.Database | undefined } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const writer = connectSqlite(file, busyTimeoutMs);
  closingOnFailure(writer, () => {
    writer.pragma('journal_mode = WAL');
    writer.pragma('synchronous = NORMAL');
    writer.pragma('foreign_keys = ON');
    // The writer waits for another process's write lock itself, without blocking the event loop.
    writer.pragma('busy_timeout = 0');
    // Each transaction of a group runs in a savepoint, whose journal SQLite would otherwise keep in a temporary file.
    writer.pragma('temp_store = MEMORY');
  });
  const reader = file === ':memory:' ? undefined : closingOnFailure(writer, () => connectSqlite(file, busyTimeoutMs));
  return { writer, reader };
}

// COUNT(*) and SUM() of integers come back as int8; every such value here fits a JS number.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A statement or transaction that ran past its bound by the client's own clock: the server did
 * not answer in time (stopped, cut off by the network, or its disk stuck).
 */
export class DatabaseTimeoutError extends Error {}

/**
 * How long after a kind's bound the client gives up by itself: a server that answers cancels the
 * statement first (its statement_timeout), and the connection stays usable; only a server that
 * does not answer at all meets the client's guard.
 */
const CLIENT_GUARD_MARGIN_MS = 250;

/**
 * One pool client as one kind of work uses it: each checkout (a statement outside a transaction,
 * or a whole transaction) must end within the kind's bound. PostgreSQL bounds each statement
 * itself, but a frozen server enforces nothing, so the client keeps its own deadline: every
 * query is sent with the time left (node-postgres's query_timeout), and once the time is out
 * nothing more is sent, a COMMIT least of all. The connection is then closed rather than
 * returned, and PostgreSQL rolls back whatever it still held open when it reads the close.
 *
 * PostgreSQL also plans every statement it is sent unnamed, and planning a query that joins
 * several tables costs it more than running it. Queries of fixed shape (prepareQuery), and reads
 * whose text recurs (statementName), go as named statements instead: each connection prepares
 * one once, and after a few runs PostgreSQL may keep a generic plan.
 */
class GuardedClient {
  private deadline = 0;
  private timedOut = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly boundMs: number,
  ) {}

  /** `askedAt`: when the pool was asked for the connection, as the wait for one counts against the bound. */
  checkedOut(askedAt: number): void {
    this.deadline = askedAt + this.boundMs + CLIENT_GUARD_MARGIN_MS;
    this.timedOut = false;
  }

  /** Only the (sql, parameters) form is ever called: the dialect has no cursor configured. */
  async query(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    const left = this.deadline - Date.now();
    if (this.timedOut || left <= 0) {
      this.timedOut = true;
      throw this.timeout();
    }
    try {
      // node-postgres takes query_timeout per query too; its types name it only for the client.
      const query: pg.QueryConfig & { query_timeout: number } = { name: statementName(text), text, values: [...values], query_timeout: left };
      return await this.client.query(query);
    } catch (error) {
      if (!(error instanceof Error && error.message === 'Query read timeout')) throw error;
      this.timedOut = true;
      throw this.timeout(error);
    }
  }

  release(): void {
    this.client.release(this.timedOut ? this.timeout() : undefined);
  }

  private timeout(cause?: Error): DatabaseTimeoutError {
    return new DatabaseTimeoutError(`the database did not answer within ${this.boundMs} ms`, { cause });
  }
}

/**
 * The pool as one kind of work uses it. A connection's session carries the statement bound of
 * the kind it last served (`sessionBounds`, the requests' from the start): a checkout for another
 * kind changes it first, which happens rarely, as requests take nearly every checkout. Ending it
 * ends the pool only for the kind that owns it.
 */
function guardedPool(pool: pg.Pool, boundMs: number, sessionBounds: SessionBounds, ownsPool: boolean): PostgresPool {
  // Kysely keeps its connection per client object, so each pg client keeps its one wrapper.
  const wrappers = new WeakMap<pg.PoolClient, GuardedClient>();
  return {
    async connect() {
      const askedAt = Date.now();
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = new GuardedClient(client, boundMs);
        wrappers.set(client, wrapper);
      }
      wrapper.checkedOut(askedAt);
      if ((sessionBounds.ofClient.get(client) ?? sessionBounds.initial) !== boundMs) {
        try {
          // An open transaction idle this long belongs to a client that stopped (this process frozen):
          // PostgreSQL ends it rather than let its locks stop everyone else.
          await wrapper.query(
            "select set_config('statement_timeout', $1, false), set_config('idle_in_transaction_session_timeout', $1, false)",
            [String(boundMs)],
          );
        } catch (error) {
          wrapper.release();
          throw error;
        }
        sessionBounds.ofClient.set(client, boundMs);
      }
      return wrapper as unknown as PostgresPoolClient;
    },
    end: () => (ownsPool ? pool.end() : Promise.resolve()),
  };
}

interface SessionBounds {
  /** The bound every new connection starts with (startup parameters of the pool). */
  readonly initial: number;
  readonly ofClient: WeakMap<pg.PoolClient, number>;
}

export interface OpenOptions {
  /** SQLite: checkpoint the write-ahead log from a worker thread (a server's many writes), not inside commits. */
  backgroundCheckpoints?: boolean;
  /** The bound of each kind of work (default DEFAULT_WORK_TIMEOUTS). */
  timeouts?: WorkTimeouts;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  const dialect = dialectOf(url);
  const timeouts = options.timeouts ?? DEFAULT_WORK_TIMEOUTS;
  if (dialect === 'sqlite') {
    const file = sqliteFile(url);
    const { writer, reader } = openSqlite(file, timeouts.requests);
    const storage = new SqliteStorage();
    const checkpointer = options.backgroundCheckpoints && file !== ':memory:' ? startCheckpointer(file, storage) : undefined;
    if (checkpointer) writer.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
    const driver = new GroupCommitDriver(
      { database: writer, statements: withStatementCache(writer) },
      reader && { database: reader, statements: withStatementCache(reader) },
      timeouts.requests,
      storage,
    );
    const kysely = (kindDriver: Driver) => {
      const db = new Kysely<Database>({ dialect: withWriteScopes(groupCommitDialect(() => kindDriver)) });
      allowDirectReads(db, (sql, parameters) => driver.readNow(sql, parameters));
      return db;
    };
    const db = kysely(driver);
    return {
      db,
      backgroundDb: kysely(driver.withLockWait(timeouts.background)),
      migrationDb: kysely(driver.withLockWait(timeouts.migrations)),
      dialect,
      storage,
      destroy: async () => {
        // First the worker: the last connection to close folds the log back into the file.
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }
  const pool = new pg.Pool({
    connectionString: url,
    // Booking writes hold their connection while they wait for an agent's lock, so a burst of
    // writes to one agent occupies as many connections as it has requests; 20 keep reads and
    // other agents' writes going beside such a burst (four instances stay well inside
    // PostgreSQL's default of 100 connections).
    max: 20,
    // The time a query may wait for a free connection, queueing and connecting included: under a
    // burst, requests queue for a connection rather than fail; a server that accepts connections
    // but does not answer (frozen) holds a request no longer than its bound, as the wait counts
    // against it (GuardedClient). A database that refuses connections fails at once.
    connectionTimeoutMillis: timeouts.requests,
    idleTimeoutMillis: 30000,
    // Every connection starts with the requests' bounds (guardedPool).
    statement_timeout: timeouts.requests,
    idle_in_transaction_session_timeout: timeouts.requests,
    types: pgTypes,
  });
  // A client losing its connection (database restart, network cut) must not crash the process:
  // a query in flight fails (and is answered 503), the pool drops the client, the next query
  // connects afresh. Without these listeners the 'error' event would be unhandled.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const sessionBounds: SessionBounds = { initial: timeouts.requests, ofClient: new WeakMap() };
  const kysely = (boundMs: number, ownsPool: boolean) =>
    new Kysely<Database>({ dialect: withWriteScopes(new PostgresDialect({ pool: guardedPool(pool, boundMs, sessionBounds, ownsPool) })) });
  const db = kysely(timeouts.requests, true);
  return {
    db,
    backgroundDb: kysely(timeouts.background, false),
    migrationDb: kysely(timeouts.migrations, false),
    dialect,
    destroy: () => db.destroy(),
  };
}

/**
 * Whether the database answers a trivial query within `withinMs`, whatever it does meanwhile
 * (frozen, unreachable, every connection taken). A check still running when the next is asked
 * serves that one too, so a database that does not answer holds one connection for it, not one
 * per probe.
 */
export function readinessCheck(db: Db): (withinMs: number) => Promise<boolean> {
  let running: Promise<boolean> | undefined;
  return async (withinMs) => {
    running ??= sql`select 1`
      .execute(db)
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        running = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, withinMs, false);
    });
    try {
      return await Promise.race([running, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '25P03', // idle_in_transaction_session_timeout
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
]);

/** True for errors that mean "the database cannot serve now" rather than "this query is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof DatabaseTimeoutError) return true;
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_IOERR'))) {
    return true;
  }
  // 55000 is a class of its own ("object not in prerequisite state"), mostly faults of a query;
  // only from the check at connection time does it mean the database takes no connections now.
  if (code === '55000' && routine === 'CheckMyDatabase') return true;
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/.test(
      message,
    )
  );
}

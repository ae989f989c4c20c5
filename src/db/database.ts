import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { foldCase } from '../lib/text.js';
import { startCheckpointer } from './checkpointer.js';
import { allowDirectReads, statementName } from './prepared.js';
import { GroupCommitDriver, groupCommitDialect } from './sqlite-driver.js';
import { SqliteStorage } from './sqlite-storage.js';
import { withStatementCache } from './statement-cache.js';
import { withWriteScopes } from './write-scope.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * Every table of the service. Empty here: each module declares its own tables into it (module
 * augmentation in the module's table.ts), so this layer knows no module.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface Database {}

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Db;
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
function connectSqlite(file: string): SQLite.Database {
  const database = new SQLite(file);
  closingOnFailure(database, () => {
    // A read meets a lock only while another process recovers the log: it waits instead of failing.
    database.pragma('busy_timeout = 5000');
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
function openSqlite(file: string): { writer: SQLite.Database; reader: SQLite.Database | undefined } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const writer = connectSqlite(file);
  closingOnFailure(writer, () => {
    writer.pragma('journal_mode = WAL');
    writer.pragma('synchronous = NORMAL');
    writer.pragma('foreign_keys = ON');
    // The writer waits for another process's write lock itself, without blocking the event loop.
    writer.pragma('busy_timeout = 0');
    // Each transaction of a group runs in a savepoint, whose journal SQLite would otherwise keep in a temporary file.
    writer.pragma('temp_store = MEMORY');
  });
  const reader = file === ':memory:' ? undefined : closingOnFailure(writer, () => connectSqlite(file));
  return { writer, reader };
}

// COUNT(*) and SUM() of integers come back as int8; every such value here fits a JS number.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * PostgreSQL plans every statement it is sent unnamed, and planning a query that joins several
 * tables costs it more than running it. Queries of fixed shape (prepareQuery), and reads whose
 * text recurs (statementName), go as named statements instead: each connection prepares one
 * once, and after a few runs PostgreSQL may keep a generic plan. Other queries go as before.
 */
function withNamedStatements(pool: pg.Pool): PostgresPool {
  // Kysely keeps its connection per client object, so each pg client keeps its one wrapper.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        // Only the (sql, parameters) form is ever called: the dialect has no cursor configured.
        const query = (text: string, values: readonly unknown[]) => client.query({ name: statementName(text), text, values: [...values] });
        wrapper = { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

export interface OpenOptions {
  /** SQLite: checkpoint the write-ahead log from a worker thread (a server's many writes), not inside commits. */
  backgroundCheckpoints?: boolean;
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const file = sqliteFile(url);
    const { writer, reader } = openSqlite(file);
    const storage = new SqliteStorage();
    const checkpointer = options.backgroundCheckpoints && file !== ':memory:' ? startCheckpointer(file, storage) : undefined;
    if (checkpointer) writer.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
    const driver = new GroupCommitDriver(
      { database: writer, statements: withStatementCache(writer) },
      reader && { database: reader, statements: withStatementCache(reader) },
      storage,
    );
    const db = new Kysely<Database>({ dialect: withWriteScopes(groupCommitDialect(() => driver)) });
    allowDirectReads(db, (sql, parameters) => driver.readNow(sql, parameters));
    return {
      db,
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
    // The time a query may wait for a free connection, queueing included: under a burst, requests
    // queue for a connection rather than fail. A database that refuses connections fails at once.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30000,
    types: pgTypes,
  });
  // A client losing its connection (database restart, network cut) must not crash the process:
  // a query in flight fails (and is answered 503), the pool drops the client, the next query
  // connects afresh. Without these listeners the 'error' event would be unhandled.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: withWriteScopes(new PostgresDialect({ pool: withNamedStatements(pool) })) });
  return { db, dialect, destroy: () => db.destroy() };
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
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
]);

/** True for errors that mean "the database cannot serve now" rather than "this query is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
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

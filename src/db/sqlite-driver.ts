import type SQLite from 'better-sqlite3';
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { isDiskFull, SqliteStorage, type CheckpointResult } from './sqlite-storage.js';
import type { StatementCache } from './statement-cache.js';
import { DEFAULT_WORK_TIMEOUTS } from './work-timeouts.js';

/** Transactions committed together at most; a longer queue starts a new group. */
export const MAX_GROUP_MEMBERS = 64;

const MEMBER = 'bk_member';

/** Pauses between attempts at the lock, growing as SQLite's own busy handler's do. */
const LOCK_RETRY_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** What a transaction fails with when the write lock stays taken past its wait, as SQLite's own busy wait does. */
function lockWaitOver(waitMs: number): Error {
  return Object.assign(new Error(`database is locked: the write lock stayed taken for ${waitMs} ms`), { code: 'SQLITE_BUSY' });
}

/**
 * First come, first served: the writing connection runs one transaction at a time. A waiter gives
 * up after its wait, since the holder may itself be waiting longer for another process's lock.
 */
class Mutex {
  private locked = false;
  private readonly waiting: (() => void)[] = [];

  lock(waitMs = Infinity): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      if (Number.isFinite(waitMs)) {
        timer = setTimeout(() => {
          const place = this.waiting.indexOf(grant);
          if (place < 0) return;
          this.waiting.splice(place, 1);
          reject(lockWaitOver(waitMs));
        }, waitMs);
      }
      this.waiting.push(grant);
    });
  }

  unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.locked = false;
  }
}

/** Transactions that have done their work in one open SQLite transaction and wait for its COMMIT. */
class Group {
  members = 0;
  flushScheduled = false;
  /** A member that ran a statement that may write was released into it: only such a COMMIT shows the disk has room. */
  wrote = false;
  readonly committed: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Members that failed on their own do not wait for the outcome; nobody may be listening.
    this.committed.catch(() => undefined);
  }
}

export interface SqliteConnection {
  database: SQLite.Database;
  statements: StatementCache;
}

class GroupConnection implements DatabaseConnection {
  /** True from BEGIN until this transaction's savepoint is released or rolled back. */
  inTransaction = false;
  /** This transaction ran a statement that may write. */
  wrote = false;

  constructor(
    private readonly driver: GroupCommitDriver,
    /** How long a transaction of this connection waits for the write lock, queue in this process included. */
    readonly lockWaitMs: number,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield await this.executeQuery<R>(query);
  }
}

function run<R>(statement: SQLite.Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * SQLite with group commit and a connection of its own for reads.
 *
 * A COMMIT costs SQLite more than the statements of a booking write: it appends every page the
 * transaction changed to the log. Transactions that arrive while one is open therefore run one
 * after the other inside the same SQLite transaction, each in a savepoint (a failing one rolls
 * back only its own work), and one COMMIT at the end of the event-loop turn ends them all.
 * Each still holds the single write lock from its first statement to its last, so writers stay
 * serialised exactly as before, across processes too (BEGIN IMMEDIATE). A transaction reports
 * success only once its group has committed; if the COMMIT fails, every member fails with it.
 *
 * Statements outside a transaction that only read go to a second connection, which sees
 * committed data only and never waits for a writer. A write outside a transaction is a
 * transaction of its own. An in-memory database has one connection and commits every transaction
 * on its own, reads waiting for the write lock, so that nothing reads uncommitted work.
 */
export class GroupCommitDriver implements Driver {
  private readonly writeLock = new Mutex();
  private group: Group | undefined;

  private readonly writer: SQLite.Database;
  private readonly writerStatements: StatementCache;

  constructor(
    writer: SqliteConnection,
    private readonly reader: SqliteConnection | undefined,
    private readonly lockWaitMs: number = DEFAULT_WORK_TIMEOUTS.requests,
    private readonly storage = new SqliteStorage(),
  ) {
    this.writer = writer.database;
    this.writerStatements = writer.statements;
  }

  init(): Promise<void> {
    return Promise.resolve();
  }

  acquireConnection(): Promise<GroupConnection> {
    return Promise.resolve(new GroupConnection(this, this.lockWaitMs));
  }

  /**
   * This driver for another kind of work: the same connections, each transaction waiting for the
   * write lock `lockWaitMs` at most. Destroying it leaves the connections open.
   */
  withLockWait(lockWaitMs: number): Driver {
    return {
      init: () => Promise.resolve(),
      acquireConnection: () => Promise.resolve(new GroupConnection(this, lockWaitMs)),
      beginTransaction: (connection) => this.beginTransaction(connection as GroupConnection),
      commitTransaction: (connection) => this.commitTransaction(connection as GroupConnection),
      rollbackTransaction: (connection) => this.rollbackTransaction(connection as GroupConnection),
      releaseConnection: () => this.releaseConnection(),
      destroy: () => Promise.resolve(),
    };
  }

  async beginTransaction(connection: GroupConnection): Promise<void> {
    const deadline = Date.now() + connection.lockWaitMs;
    await this.writeLock.lock(connection.lockWaitMs);
    try {
      if (this.group && this.group.members >= MAX_GROUP_MEMBERS) this.commitGroup();
      if (!this.group) {
        await this.beginImmediate(deadline);
        this.group = new Group();
      }
      this.exec(`savepoint ${MEMBER}`);
      this.group.members += 1;
    } catch (error) {
      // A group left open without a member would wait for a COMMIT nobody schedules.
      if (this.group && (this.group.members === 0 || !this.writer.inTransaction)) this.failGroup(error);
      this.writeLock.unlock();
      throw error;
    }
    connection.inTransaction = true;
  }

  /**
   * Takes SQLite's write lock, waiting for another process that holds it without blocking the
   * event loop as SQLite's own busy wait would: reads go on meanwhile, and a holder in this
   * same process (a second instance in tests) can reach its COMMIT.
   */
  private async beginImmediate(deadline: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        this.exec('begin immediate');
        return;
      } catch (error) {
        const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY';
        if (!busy || Date.now() >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS[Math.min(attempt, LOCK_RETRY_MS.length - 1)]));
    }
  }

  async commitTransaction(connection: GroupConnection): Promise<void> {
    const group = this.group!;
    // A failing RELEASE leaves the transaction open: Kysely rolls it back next.
    this.exec(`release ${MEMBER}`);
    connection.inTransaction = false;
    if (connection.wrote) group.wrote = true;
    this.leave(group);
    await group.committed;
  }

  async rollbackTransaction(connection: GroupConnection): Promise<void> {
    // Nothing is open when the transaction failed at its group's COMMIT.
    if (!connection.inTransaction) return;
    connection.inTransaction = false;
    const group = this.group!;
    try {
      // SQLite ends the whole transaction by itself on some errors (disk full, I/O): then the
      // work of every member of the group is gone.
      if (!this.writer.inTransaction) throw new Error('SQLite rolled back the transaction');
      this.exec(`rollback to ${MEMBER}`);
      this.exec(`release ${MEMBER}`);
    } catch (error) {
      this.failGroup(error);
    }
    this.leave(group);
    // What made this transaction fail may be work of its group not yet committed: answer only
    // once that work is either committed or known lost.
    await group.committed.catch(() => undefined);
  }

  releaseConnection(): Promise<void> {
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    await this.writeLock.lock();
    if (this.group) this.commitGroup();
    this.reader?.database.close();
    this.writer.close();
  }

  async execute<R>(connection: GroupConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    if (connection.inTransaction) return this.write<R>(connection, query);
    if (this.reader) {
      const statement = this.reader.statements.prepare(query.sql);
      if (statement.readonly) return run<R>(statement, query.parameters);
    } else if (this.writerStatements.prepare(query.sql).readonly) {
      return this.readUnderWriteLock(query, connection.lockWaitMs);
    }
    return this.runAlone(query, connection.lockWaitMs);
  }

  /**
   * Runs a read outside any transaction at once, on the reading connection, as execute would but
   * without Kysely's asynchronous path around it. Undefined where only execute may run it: an
   * in-memory database (its reads wait for the write lock), a statement that writes, a closed
   * database.
   */
  readNow<R>(sql: string, parameters: readonly unknown[]): R[] | undefined {
    if (!this.reader?.database.open) return undefined;
    const statement = this.reader.statements.prepare(sql);
    return statement.readonly && statement.reader ? (statement.all(parameters) as R[]) : undefined;
  }

  private async runAlone<R>(query: CompiledQuery, lockWaitMs: number): Promise<QueryResult<R>> {
    const connection = new GroupConnection(this, lockWaitMs);
    await this.beginTransaction(connection);
    let result: QueryResult<R>;
    try {
      result = await this.execute<R>(connection, query);
    } catch (error) {
      await this.rollbackTransaction(connection);
      throw error;
    }
    await this.commitTransaction(connection);
    return result;
  }

  /** A statement of a transaction on the writing connection, noting a disk too full for it. */
  private write<R>(connection: GroupConnection, query: CompiledQuery): QueryResult<R> {
    const statement = this.writerStatements.prepare(query.sql);
    try {
      const result = run<R>(statement, query.parameters);
      if (!statement.readonly) connection.wrote = true;
      return result;
    } catch (error) {
      if (isDiskFull(error)) this.storage.writeRefused();
      throw error;
    }
  }

    private async readUnderWriteLock<R>(query: CompiledQuery, lockWaitMs: number): Promise<QueryResult<R>> {
    await this.writeLock.lock(lockWaitMs);
    try {
      return run<R>(this.writerStatements.prepare(query.sql), query.parameters);
    } finally {
      this.writeLock.unlock();
    }
  }

  /** A member is done with the write lock: its group commits at the end of this event-loop turn. */
  private leave(group: Group): void {
    if (!this.reader) {
      if (this.group === group) this.commitGroup();
    } else if (this.group === group && !group.flushScheduled) {
      group.flushScheduled = true;
      setImmediate(() => void this.flush(group));
    }
    this.writeLock.unlock();
  }

  private async flush(group: Group): Promise<void> {
    await this.writeLock.lock();
    try {
      if (this.group === group) this.commitGroup();
    } finally {
      this.writeLock.unlock();
    }
  }

  /** Ends the open group with COMMIT; the caller holds the write lock. */
  private commitGroup(): void {
    try {
      this.exec('commit');
    } catch (error) {
      if (isDiskFull(error)) this.storage.writeRefused();
      this.failGroup(error);
      return;
    }
    const group = this.group!;
    this.group = undefined;
    group.resolve();
    if (group.wrote && this.storage.diskFull) this.storage.writeResumed();
    if (this.storage.truncationPending) this.truncateLog();
  }

  /**
   * Gives the write-ahead log's space back once writes fit again: under load the log is never
   * empty when a writer starts, so SQLite keeps reusing and growing it, into the space just
   * freed. Busy (a reader or the checkpointer in the way) leaves it to the next commit.
   */
  private truncateLog(): void {
    try {
      const [result] = this.writer.pragma('wal_checkpoint(TRUNCATE)') as CheckpointResult[];
      if (result && result.busy === 0) this.storage.walTruncated(result);
    } catch (error) {
      this.storage.checkpointFailed(error);
    }
  }

  private failGroup(error: unknown): void {
    const group = this.group!;
    this.group = undefined;
    if (this.writer.inTransaction) {
      try {
        this.exec('rollback');
      } catch {
        // Rolled back already by SQLite, or the connection is gone: either way nothing of it stays.
      }
    }
    group.reject(error);
  }

  private exec(sql: string): void {
    this.writerStatements.prepare(sql).run();
  }
}

/** Kysely's SQLite dialect on a GroupCommitDriver (or one of its withLockWait views). */
export function groupCommitDialect(createDriver: () => Driver): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
}

import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

export type RunStatement = (query: CompiledQuery) => Promise<QueryResult<unknown>>;

/**
 * Lets an idempotent request know, in the database itself, whether its work committed: in the
 * async context of a scope, every write commits only together with `beforeCommit`'s statements,
 * run in the same transaction just before COMMIT (throwing there rolls the write back).
 */
export interface WriteScope {
  /** Unset once the scope's owner has its answer: later writes are no longer its work. */
  beforeCommit: ((run: RunStatement) => Promise<void>) | undefined;
}

const scopes = new AsyncLocalStorage<WriteScope>();

/** Runs `fn`, and everything it starts, in `scope`. */
export function runInWriteScope<T>(scope: WriteScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

function isWrite(query: CompiledQuery): boolean {
  const { kind } = query.query;
  if (kind === 'SelectQueryNode') return false;
  // Raw SQL counts as a write unless it plainly reads, so that none can slip past a scope.
  return kind !== 'RawNode' || !/^\s*select\b/i.test(query.sql);
}

/**
 * Every statement passes here, so no transaction or write can bypass a scope: a transaction that
 * wrote runs the scope's statements before COMMIT, and a write outside any transaction is run in
 * one of its own to carry them. Without a scope a statement costs one check more, nothing else.
 */
class ScopedConnection implements DatabaseConnection {
  inTransaction = false;
  wrote = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly driver: ScopedDriver,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!isWrite(query)) return this.inner.executeQuery(query);
    if (this.inTransaction) {
      this.wrote = true;
      return this.inner.executeQuery(query);
    }
    if (scopes.getStore()?.beforeCommit === undefined) return this.inner.executeQuery(query);
    return this.driver.runAlone(this, query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery(query, chunkSize);
  }
}

class ScopedDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, ScopedConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<ScopedConnection> {
    const inner = await this.inner.acquireConnection();
    let connection = this.connections.get(inner);
    if (!connection) {
      connection = new ScopedConnection(inner, this);
      this.connections.set(inner, connection);
    }
    return connection;
  }

  async beginTransaction(connection: ScopedConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(connection.inner, settings);
    connection.inTransaction = true;
    connection.wrote = false;
  }

  async commitTransaction(connection: ScopedConnection): Promise<void> {
    const beforeCommit = connection.wrote ? scopes.getStore()?.beforeCommit : undefined;
    if (beforeCommit) await beforeCommit((query) => connection.inner.executeQuery(query));
    await this.inner.commitTransaction(connection.inner);
    connection.inTransaction = false;
  }

  async rollbackTransaction(connection: ScopedConnection): Promise<void> {
    connection.inTransaction = false;
    // The error that led here is the one to report: a failed rollback means the transaction is
    // gone already (SQLite ends it by itself on some errors, a lost connection takes it along).
    await this.inner.rollbackTransaction(connection.inner).catch(() => undefined);
  }

  /** A write outside any transaction, in a scope: it gets a transaction of its own. */
  async runAlone<R>(connection: ScopedConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    await this.beginTransaction(connection, {});
    try {
      const result = await connection.executeQuery<R>(query);
      await this.commitTransaction(connection);
      return result;
    } catch (error) {
      await this.rollbackTransaction(connection);
      throw error;
    }
  }

  releaseConnection(connection: ScopedConnection): Promise<void> {
    return this.inner.releaseConnection(connection.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The dialect with write scopes. */
export function withWriteScopes(dialect: KyselyDialect): KyselyDialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new ScopedDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

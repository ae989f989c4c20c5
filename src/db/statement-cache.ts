import type SQLite from 'better-sqlite3';

/** A SQLite connection whose prepare reuses statements (Kysely's SqliteDatabase, with better-sqlite3's own statement type). */
export interface StatementCache {
  prepare(source: string): SQLite.Statement;
  close(): void;
}

/** How many prepared statements a SQLite connection keeps; the service issues a few hundred distinct ones. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, and compiling a statement costs SQLite more than running a
 * simple one. The same SQL text (parameters travel apart) reuses its prepared statement, least
 * recently used ones dropped beyond the cache size. Reuse is safe: a connection runs one statement at
 * a time, and SQLite re-prepares a statement by itself after a schema change.
 */
export function withStatementCache(database: SQLite.Database, size: number = STATEMENT_CACHE_SIZE): StatementCache {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(source: string): SQLite.Statement {
      let statement = statements.get(source);
      if (statement) {
        statements.delete(source);
      } else {
        statement = database.prepare(source);
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      }
      statements.set(source, statement);
      return statement;
    },
  };
}

import type { Compilable, CompiledQuery, DialectAdapter, Kysely } from 'kysely';

/**
 * Stands for one argument while the query is built and compiled. Turning it into text throws:
 * an argument that reaches the SQL text instead of a bound parameter is a builder bug.
 */
class Placeholder {
  constructor(
    readonly index: number,
    readonly name: string,
  ) {}

  toString(): never {
    throw new Error(`prepared query: ${this.name} was turned into text; arguments must stay bound parameters`);
  }

  [Symbol.toPrimitive](): never {
    return this.toString();
  }
}

/** The SQL of every compiled template, and the name it is prepared under on PostgreSQL. */
const statementNames = new Map<string, string>();

/** Runs after which a read of any other shape (a list page, a search) gets a name too. */
export const RUNS_BEFORE_NAMING = 10;
/** How many such reads are named, at most: each connection keeps what it prepares while it lives. */
const NAMED_READS_LIMIT = 200;
const COUNTED_READS_LIMIT = 10_000;
const readRuns = new Map<string, number>();
let namedReads = 0;

/**
 * The name SQL is sent under on PostgreSQL: a prepared query's, or a read's that has run often.
 * Planning a read that joins several tables costs PostgreSQL more than running it (a page of
 * bookings: 2 ms against 1 ms); a named statement is parsed once per connection, and planned
 * once where PostgreSQL finds a generic plan as good as the ones it makes per run.
 * Texts seen rarely stay unnamed, planned on each run, and so do all beyond the limit.
 */
export function statementName(sql: string): string | undefined {
  const name = statementNames.get(sql);
  if (name !== undefined || namedReads >= NAMED_READS_LIMIT || !sql.startsWith('select ')) return name;
  const runs = (readRuns.get(sql) ?? 0) + 1;
  if (runs < RUNS_BEFORE_NAMING) {
    if (readRuns.size >= COUNTED_READS_LIMIT) readRuns.clear();
    readRuns.set(sql, runs);
    return undefined;
  }
  readRuns.delete(sql);
  namedReads += 1;
  nameStatement(sql);
  return statementNames.get(sql);
}

function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `prepared_${statementNames.size + 1}`);
}

interface Template {
  compiled: CompiledQuery;
  /** For each parameter of the compiled query, the argument it takes, or -1 for a constant of the query. */
  sources: number[];
}

/**
 * Builds a query with a stand-in for each argument (`names[i]` names argument i in errors), compiles
 * it and records which parameter takes which argument; refuses a query that leaves out an argument.
 */
function compileTemplate<DB, O>(db: Kysely<DB>, names: readonly string[], build: (placeholders: unknown[]) => Compilable<O>): Template {
  if (db.getExecutor().plugins.length > 0) throw new Error('prepared query: the database carries plugins, which may change the SQL per run');
  const compiled = build(names.map((name, index) => new Placeholder(index, name))).compile();
  const sources = compiled.parameters.map((parameter) => (parameter instanceof Placeholder ? parameter.index : -1));
  const bound = new Set(sources);
  const unbound = names.findIndex((_, index) => !bound.has(index));
  if (unbound >= 0) throw new Error(`prepared query: ${names[unbound]} is not a bound parameter of ${compiled.sql}`);
  return { compiled, sources };
}

/** Runs a read now, outside any transaction, or answers undefined where it cannot. */
export type DirectReader = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

const directReaders = new WeakMap<object, DirectReader>();

/**
 * Lets the prepared reads of `db` itself (not of its transactions or connections) run through
 * `reader`: each query that passes through Kysely's executor costs several promises and
 * microtask turns, more than a simple SQLite read costs itself (the key lookup of every request).
 */
export function allowDirectReads<DB>(db: Kysely<DB>, reader: DirectReader): void {
  directReaders.set(db, reader);
}

/** Runs a template with `argument(i)` as the value of argument i. */
async function runTemplate<DB, O>(db: Kysely<DB>, { compiled, sources }: Template, argument: (index: number) => unknown): Promise<O[]> {
  const parameters = sources.map((source, i) => (source < 0 ? compiled.parameters[i] : argument(source)));
  const direct = compiled.query.kind === 'SelectQueryNode' ? directReaders.get(db) : undefined;
  const rows = direct?.(compiled.sql, parameters);
  if (rows) return rows as O[];
  const result = await db.executeQuery<O>({ query: compiled.query, queryId: compiled.queryId, sql: compiled.sql, parameters });
  return result.rows;
}

export interface PreparedQuery<DB, A extends unknown[], O> {
  /** All rows (none for a statement without `returning`). */
  execute(db: Kysely<DB>, ...args: A): Promise<O[]>;
  /** The first row, or undefined. */
  executeTakeFirst(db: Kysely<DB>, ...args: A): Promise<O | undefined>;
}

/**
 * A query of fixed shape, built and compiled once per database dialect and then run with new
 * argument values: building and compiling a Kysely query costs more than running a simple one.
 *
 * `build` declares each argument as a plain parameter (no default, no rest) and must give the
 * same SQL whatever the arguments: use each argument only as a value
 * (`where('id', '=', id)`, `values({ name })`), never to decide the query's shape, never in an
 * `in` list or as text. It is called once per dialect with stand-ins for the arguments; each
 * argument must come out as a bound parameter (checked then). Constants written in the query
 * stay as they were compiled. Works on a database, a transaction or a connection of it, none of
 * which may carry plugins that transform queries. On PostgreSQL the statement is also prepared on
 * the server, once per connection (see withNamedStatements).
 *
 * @example
 * const keyByHash = prepareQuery((db: Db, hash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash));
 * const key = await keyByHash.executeTakeFirst(trx, hash);
 */
export function prepareQuery<DB, A extends unknown[], O>(build: (db: Kysely<DB>, ...args: A) => Compilable<O>): PreparedQuery<DB, A, O> {
  // Keyed by the dialect adapter, which a database shares with its transactions and connections.
  const templates = new WeakMap<DialectAdapter, Template>();
  // build.length leaves out a parameter with a default and a rest parameter, which would compile as
  // constants: a call passing such an argument is refused.
  const names = Array.from({ length: build.length - 1 }, (_, i) => `argument ${i}`);

  function template(db: Kysely<DB>): Template {
    const adapter = db.getExecutor().adapter;
    let found = templates.get(adapter);
    if (!found) {
      found = compileTemplate(db, names, (placeholders) => build(db, ...(placeholders as A)));
      nameStatement(found.compiled.sql);
      templates.set(adapter, found);
    }
    return found;
  }

  async function execute(db: Kysely<DB>, ...args: A): Promise<O[]> {
    if (args.length !== names.length) throw new Error(`prepared query: ${args.length} arguments for ${names.length}; declare each as a plain parameter`);
    return runTemplate<DB, O>(db, template(db), (index) => args[index]);
  }

  return {
    execute,
    async executeTakeFirst(db, ...args) {
      return (await execute(db, ...args))[0];
    },
  };
}

/**
 * The fields of a row of arguments. The type requires every one: a field left out would reach
 * the query as undefined, whose column Kysely leaves out of an insert without a word.
 */
export type RowFields<R> = { readonly [K in keyof R]-?: true };

/**
 * Bound parameters a statement may have: SQLite's (SQLITE_MAX_VARIABLE_NUMBER, 32766 since
 * 3.32), below PostgreSQL's 65535, so that a statement fits both.
 */
const MAX_PARAMETERS = 32766;

export interface PreparedRows<DB, R, O> {
  /** All rows of the statement for these rows of arguments (none for no rows, or without `returning`). */
  execute(db: Kysely<DB>, rows: readonly R[]): Promise<O[]>;
}

/**
 * A statement over a list of rows of arguments, such as a multi-row insert or a select of one
 * row (or one condition) per element of a bulk request, built and compiled
 * once per database dialect and number of rows up to `maxRows`, and then run with new argument
 * values: building and compiling an insert of many values costs more than running it. Longer
 * lists are built and compiled on each run, as a plain Kysely query would be, and not kept.
 *
 * `build` is called with as many rows as the run has, each an object with the `fields`; as with
 * prepareQuery's arguments (which see), each field of each row must be used as a value only and
 * come out as a bound parameter (checked when the template is compiled), and constants written in
 * the query stay as they were compiled. The parameters of `maxRows` rows must stay within the
 * engines' limit: checked on the first compile, of any number of rows. On PostgreSQL each number
 * of rows is a named statement of its own.
 *
 * @example
 * const insertSources = prepareRowsQuery({ bookingId: true, source: true }, 50, (db: Db, rows: { bookingId: number; source: string }[]) =>
 *   db.insertInto('booking_meta').values(rows.map((row) => ({ booking_id: row.bookingId, meta_key: 'source', meta_value: row.source }))));
 * await insertSources.execute(trx, [{ bookingId: 1, source: 'web' }, { bookingId: 2, source: 'phone' }]);
 */
export function prepareRowsQuery<DB, R extends object, O>(
  fields: NoInfer<RowFields<R>>,
  maxRows: number,
  build: (db: Kysely<DB>, rows: R[]) => Compilable<O>,
): PreparedRows<DB, R, O> {
  const keys = Object.keys(fields) as (keyof R & string)[];
  const templates = new WeakMap<DialectAdapter, Map<number, Template>>();

  function compile(db: Kysely<DB>, count: number): Template {
    const names = Array.from({ length: count * keys.length }, (_, i) => `row ${Math.floor(i / keys.length)} field ${keys[i % keys.length]}`);
    const template = compileTemplate(db, names, (placeholders) => {
      const rows = Array.from({ length: count }, (_, row) => Object.fromEntries(keys.map((key, k) => [key, placeholders[row * keys.length + k]])) as R);
      return build(db, rows);
    });
    // Parameters grow with the rows by a fixed number each, so those of `count` rows scaled to
    // maxRows bound those of maxRows rows: a list too long for the limit shows on the first
    // compile, of any length, not when a request first brings that many rows.
    const most = Math.max(maxRows, count);
    const largest = (template.compiled.parameters.length * most) / count;
    if (largest > MAX_PARAMETERS) {
      throw new Error(`prepared rows: ${most} rows would take up to ${Math.floor(largest)} parameters, over the limit of ${MAX_PARAMETERS}`);
    }
    return template;
  }

  function template(db: Kysely<DB>, count: number): Template {
    if (count > maxRows) return compile(db, count);
    const adapter = db.getExecutor().adapter;
    let byCount = templates.get(adapter);
    if (!byCount) {
      byCount = new Map();
      templates.set(adapter, byCount);
    }
    let found = byCount.get(count);
    if (!found) {
      found = compile(db, count);
      nameStatement(found.compiled.sql);
      byCount.set(count, found);
    }
    return found;
  }

  return {
    async execute(db, rows) {
      if (rows.length === 0) return [];
      const width = keys.length;
      return runTemplate<DB, O>(db, template(db, rows.length), (index) => (rows[Math.floor(index / width)] as R)[keys[index % width] as keyof R]);
    },
  };
}

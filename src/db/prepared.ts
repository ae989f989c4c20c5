import type { Compilable, CompiledQuery, DialectAdapter, Kysely } from 'kysely';

/**
 * Stands for one argument while the query is built and compiled. Turning it into text throws:
 * an argument that reaches the SQL text instead of a bound parameter is a builder bug.
 */
class Placeholder {
  constructor(readonly index: number) {}

  toString(): never {
    throw new Error(`prepared query: argument ${this.index} was turned into text; arguments must stay bound parameters`);
  }

  [Symbol.toPrimitive](): never {
    return this.toString();
  }
}

/** The SQL of every compiled template, and the name it is prepared under on PostgreSQL. */
const statementNames = new Map<string, string>();

/** The server-side statement name of a prepared query's SQL; undefined for any other SQL. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

interface Template {
  compiled: CompiledQuery;
  /** For each parameter of the compiled query, the argument it takes, or -1 for a constant of the query. */
  sources: number[];
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
  const arity = build.length - 1;

  function template(db: Kysely<DB>): Template {
    const adapter = db.getExecutor().adapter;
    let found = templates.get(adapter);
    if (!found) {
      found = compileTemplate(db, arity, build);
      templates.set(adapter, found);
    }
    return found;
  }

  async function execute(db: Kysely<DB>, ...args: A): Promise<O[]> {
    if (args.length !== arity) throw new Error(`prepared query: ${args.length} arguments for ${arity}; declare each as a plain parameter`);
    const { compiled, sources } = template(db);
    const parameters = sources.map((source, i) => (source < 0 ? compiled.parameters[i] : args[source]));
    const result = await db.executeQuery<O>({ query: compiled.query, queryId: compiled.queryId, sql: compiled.sql, parameters });
    return result.rows;
  }

  return {
    execute,
    async executeTakeFirst(db, ...args) {
      return (await execute(db, ...args))[0];
    },
  };
}

function compileTemplate<DB, A extends unknown[], O>(
  db: Kysely<DB>,
  arity: number,
  build: (db: Kysely<DB>, ...args: A) => Compilable<O>,
): Template {
  if (db.getExecutor().plugins.length > 0) throw new Error('prepared query: the database carries plugins, which may change the SQL per run');
  const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
  const compiled = build(db, ...(placeholders as unknown as A)).compile();
  const sources = compiled.parameters.map((parameter) => (parameter instanceof Placeholder ? parameter.index : -1));
  for (const placeholder of placeholders) {
    if (!sources.includes(placeholder.index)) {
      throw new Error(`prepared query: argument ${placeholder.index} is not a bound parameter of ${compiled.sql}`);
    }
  }
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `prepared_${statementNames.size + 1}`);
  return { compiled, sources };
}

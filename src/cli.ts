import { loadConfig, ConfigError } from './config.js';
import { UsageError, type CliIo, type Command } from './cli/command.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { AppError } from './core/errors.js';
import { adminPasswordSet } from './modules/admin/index.js';
import { keysCreate, keysList, keysRevoke } from './modules/api-keys/index.js';
import { audit } from './modules/audit/index.js';
import { seed } from './modules/demo/index.js';
import { outboxList } from './modules/mail/index.js';
import { initialiseSettings, settingsGet, settingsSet } from './modules/settings/index.js';

const migrate: Command = {
  usage: 'migrate [--json]',
  // Pending migrations are applied before any command runs; this one reports what that did.
  run: ({ io, args, applied }) => {
    if (args.includes('--json')) io.stdout.write(`${JSON.stringify({ applied })}\n`);
    else io.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return Promise.resolve();
  },
};

const COMMANDS: Record<string, Command> = {
  migrate,
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'settings get': settingsGet,
  'settings set': settingsSet,
  seed,
  audit,
  'admin-password set': adminPasswordSet,
  'outbox list': outboxList,
};

function usage(): string {
  return `usage: booking <command>\n${Object.values(COMMANDS)
    .map((c) => `  booking ${c.usage}`)
    .join('\n')}\n`;
}

function findCommand(argv: readonly string[]): { command: Command; args: string[] } | undefined {
  const [first, second] = argv;
  if (first !== undefined && second !== undefined && COMMANDS[`${first} ${second}`]) {
    return { command: COMMANDS[`${first} ${second}`]!, args: argv.slice(2) };
  }
  if (first !== undefined && COMMANDS[first]) return { command: COMMANDS[first], args: argv.slice(1) };
  return undefined;
}

/** Runs one CLI command; returns the exit code. Every command first migrates the database. */
export async function runCli(argv: readonly string[], io: CliIo, env: Record<string, string | undefined>): Promise<number> {
  const asksHelp = (args: readonly string[]) => args.includes('--help') || args.includes('-h');
  if (argv.length === 1 && (asksHelp(argv) || argv[0] === 'help')) {
    io.stdout.write(usage());
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr.write(usage());
    return 2;
  }
  if (asksHelp(found.args)) {
    io.stdout.write(`usage: booking ${found.command.usage}\n`);
    return 0;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr.write(`configuration error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  let database;
  try {
    database = openDatabase(config.databaseUrl);
  } catch (error) {
    // A SQLite file that cannot be opened (a folder, a path through a file, not a database) fails here.
    io.stderr.write(`error: cannot open the database named by DATABASE_URL (${error instanceof Error ? error.message : String(error)})\n`);
    return 1;
  }
  try {
    const applied = await migrateToLatest(database);
    await initialiseSettings(database.db, config.siteTimezone);
    await found.command.run({ db: database.db, config, io, args: found.args, applied });
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`error: ${error.message}\nusage: booking ${found.command.usage}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      io.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await database.destroy();
  }
}

export async function main(): Promise<void> {
  // A reader that stops early (`booking audit | head -1`) closes the pipe: the rest of the output
  // has nowhere to go, which is no failure of the command.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
  process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, process.env);
}

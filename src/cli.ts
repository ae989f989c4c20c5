import { loadConfig, ConfigError } from './config.js';
import { defineCommand, JSON_OPTION, UsageError, type CliIo, type Command } from './cli/command.js';
import { commandHelp, commandList, usageLine } from './cli/help.js';
import { parseCommandLine } from './cli/parse.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { AppError } from './core/errors.js';
import { nearestName } from './lib/text.js';
import { adminPasswordSet } from './modules/admin/index.js';
import { keysCreate, keysList, keysRevoke } from './modules/api-keys/index.js';
import { audit } from './modules/audit/index.js';
import { seed } from './modules/demo/index.js';
import { outboxList } from './modules/mail/index.js';
import { initialiseSettings, settingsGet, settingsSet } from './modules/settings/index.js';

const migrate = defineCommand({
  summary: 'Apply pending migrations and say which were applied.',
  options: { json: JSON_OPTION },
  // Pending migrations are applied before any command runs; this one reports what that did.
  run: ({ io, options, applied }) => {
    if (options.json) io.stdout.write(`${JSON.stringify({ applied })}\n`);
    else io.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return Promise.resolve();
  },
});

/** Every command by its name; a name of two words belongs to the group named by the first. */
const COMMANDS: Readonly<Record<string, Command>> = {
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

const HELP_FLAGS = ['--help', '-h'];
const asksHelp = (args: readonly string[]) => args.some((arg) => HELP_FLAGS.includes(arg));

function overview(): string {
  return (
    `usage: booking COMMAND [ARGUMENTS] [OPTIONS]\n\ncommands:\n${commandList(COMMANDS)}\n` +
    'Every command reads DATABASE_URL and applies pending migrations first.\n' +
    "Run 'booking COMMAND --help' for a command's arguments and options.\n"
  );
}

function groupHelp(group: string): string {
  const members = Object.fromEntries(Object.entries(COMMANDS).filter(([name]) => name.startsWith(`${group} `)));
  return `usage: booking ${group} SUBCOMMAND\n\nsubcommands:\n${commandList(members)}\nRun 'booking ${group} SUBCOMMAND --help' for its arguments and options.\n`;
}

type Found = { kind: 'command'; name: string; command: Command; args: string[] } | { kind: 'group'; group: string; rest: string[] } | { kind: 'unknown'; name: string };

function findCommand(argv: readonly string[]): Found {
  const [first = '', second] = argv;
  const two = `${first} ${second ?? ''}`;
  if (second !== undefined && COMMANDS[two]) return { kind: 'command', name: two, command: COMMANDS[two], args: argv.slice(2) };
  if (COMMANDS[first]) return { kind: 'command', name: first, command: COMMANDS[first], args: argv.slice(1) };
  if (Object.keys(COMMANDS).some((name) => name.startsWith(`${first} `))) return { kind: 'group', group: first, rest: argv.slice(1) };
  return { kind: 'unknown', name: first };
}

/**
 * Runs one CLI command; returns the exit code: 0 done, 1 failed, 2 not understood (then the
 * usage goes to stderr). Every command first migrates the database.
 */
export async function runCli(argv: readonly string[], io: CliIo, env: Record<string, string | undefined>): Promise<number> {
  if (argv.length === 0) {
    io.stderr.write(overview());
    return 2;
  }
  // `help`, `--help`, and `help COMMAND` as `COMMAND --help`.
  if (argv[0] === 'help' || HELP_FLAGS.includes(argv[0] ?? '')) {
    if (argv.length === 1 || argv[0] !== 'help') {
      io.stdout.write(overview());
      return 0;
    }
    return runCli([...argv.slice(1), '--help'], io, env);
  }
  const found = findCommand(argv);
  if (found.kind === 'unknown') {
    const near = nearestName(found.name, [...new Set(Object.keys(COMMANDS).map((name) => name.split(' ')[0] ?? name))]);
    io.stderr.write(`unknown command: ${found.name}${near === undefined ? '' : `; did you mean ${near}?`}\n\n${overview()}`);
    return 2;
  }
  if (found.kind === 'group') {
    const [sub] = found.rest;
    if (sub !== undefined && HELP_FLAGS.includes(sub)) {
      io.stdout.write(groupHelp(found.group));
      return 0;
    }
    io.stderr.write(`${sub === undefined ? `missing subcommand: ${found.group}` : `unknown command: ${found.group} ${sub}`}\n\n${groupHelp(found.group)}`);
    return 2;
  }
  const { name, command } = found;
  if (asksHelp(found.args)) {
    io.stdout.write(commandHelp(name, command));
    return 0;
  }
  const usageMistake = (error: UsageError) => {
    io.stderr.write(`error: ${error.message}\nusage: booking ${usageLine(name, command)}\nRun 'booking ${name} --help' for its options.\n`);
    return 2;
  };
  let commandLine;
  try {
    commandLine = parseCommandLine(command, found.args);
  } catch (error) {
    if (error instanceof UsageError) return usageMistake(error);
    throw error;
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
    database = openDatabase(config.databaseUrl, { timeouts: config.databaseTimeouts });
  } catch (error) {
    // A SQLite file that cannot be opened (a folder, a path through a file, not a database) fails here.
    io.stderr.write(`error: cannot open the database named by DATABASE_URL (${error instanceof Error ? error.message : String(error)})\n`);
    return 1;
  }
  try {
    const applied = await migrateToLatest(database);
    // A command is an operator's maintenance, bounded as migrations are.
    await initialiseSettings(database.migrationDb, config.siteTimezone);
    await command.run({ db: database.migrationDb, config, io, ...commandLine, applied });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageMistake(error);
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

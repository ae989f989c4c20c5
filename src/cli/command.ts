import type { Config } from '../config.js';
import type { Db } from '../db/database.js';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: AsyncIterable<Buffer | string>;
}

/** One option of a command: how it is parsed, and its line in the command's help. */
export interface CommandOption {
  readonly type: 'string' | 'boolean';
  /** One line for the help. */
  readonly description: string;
  /** How usage and help name the value (`--limit N`); string options only. */
  readonly value?: string;
  /** Must be given (a boolean: must be set). */
  readonly required?: boolean;
  /** The value when the option is not given (string options; a boolean is false unless given). */
  readonly default?: string;
}

export type CommandOptions = Readonly<Record<string, CommandOption>>;

/** A positional argument, in the order they are given. */
export interface CommandArgument {
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
}

/** The parsed options: a boolean is always there, a string when required, defaulted or given. */
export type OptionValues<O extends CommandOptions> = {
  -readonly [K in keyof O]: O[K]['type'] extends 'boolean' ? boolean : O[K] extends { required: true } | { default: string } ? string : string | undefined;
};

export interface CommandContext<O extends CommandOptions = CommandOptions> {
  db: Db;
  config: Config;
  io: CliIo;
  options: OptionValues<O>;
  /** The positional arguments, as many as the command declares (required ones all there). */
  positionals: string[];
  /** Migrations this invocation applied before the command ran. */
  applied: string[];
}

/** A command: its declaration is its parser, its usage line and its help. */
export interface Command<O extends CommandOptions = CommandOptions> {
  /** What the command does, one line. */
  readonly summary: string;
  readonly arguments?: readonly CommandArgument[];
  readonly options: O;
  run(context: CommandContext<O>): Promise<void>;
}

/** Declares a command, keeping the option names and kinds for the types of `run`'s options. */
export function defineCommand<const O extends CommandOptions>(command: Command<O>): Command<O> {
  return command;
}

/** `--json`, which every listing and creating command takes. */
export const JSON_OPTION = { type: 'boolean', description: 'print exactly one JSON value instead of text' } as const;

/** A usage mistake: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export function printTable(io: CliIo, rows: readonly Record<string, unknown>[], columns: readonly string[]): void {
  if (rows.length === 0) {
    io.stdout.write('(none)\n');
    return;
  }
  const cell = (value: unknown): string => {
    if (value === null || value === undefined) return '-';
    const text = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : JSON.stringify(value);
    // Text from API clients reaches the operator's terminal: control characters are shown escaped, never obeyed.
    return text.replace(CONTROL_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  };
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]): string => `${values.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`;
  io.stdout.write(line([...columns]));
  for (const row of rows) io.stdout.write(line(columns.map((c) => cell(row[c]))));
}

export function positiveInteger(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError(`${name} must be a positive integer`);
  return Number(raw);
}

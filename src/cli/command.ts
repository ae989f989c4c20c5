import type { Config } from '../config.js';
import type { Db } from '../db/database.js';

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: AsyncIterable<Buffer | string>;
}

export interface CommandContext {
  db: Db;
  config: Config;
  io: CliIo;
  /** The words after the command name (and sub-command, if any). */
  args: string[];
  /** Migrations this invocation applied before the command ran. */
  applied: string[];
}

export interface Command {
  usage: string;
  run(context: CommandContext): Promise<void>;
}

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

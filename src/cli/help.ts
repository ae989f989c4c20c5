import type { Command } from './command.js';

/** `keys create --name NAME [--type test|live] … [--json]`: arguments, then options in declared order. */
export function usageLine(name: string, command: Command): string {
  const parts = [name];
  for (const argument of command.arguments ?? []) parts.push(argument.optional ? `[${argument.name}]` : argument.name);
  for (const [option, spec] of Object.entries(command.options)) {
    const text = spec.type === 'boolean' ? `--${option}` : `--${option} ${spec.value ?? 'VALUE'}`;
    parts.push(spec.required ? text : `[${text}]`);
  }
  return parts.join(' ');
}

function columns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}\n`).join('');
}

/** `booking COMMAND --help`: the usage line, what the command does, each argument and option. */
export function commandHelp(name: string, command: Command): string {
  let text = `usage: booking ${usageLine(name, command)}\n\n${command.summary}\n`;
  const declared = command.arguments ?? [];
  if (declared.length > 0) text += `\narguments:\n${columns(declared.map((a) => [a.name, a.description]))}`;
  const options = Object.entries(command.options).map(([option, spec]): [string, string] => {
    const left = spec.type === 'boolean' ? `--${option}` : `--${option} ${spec.value ?? 'VALUE'}`;
    const notes = [spec.required ? 'required' : undefined, spec.default === undefined ? undefined : `default ${spec.default}`].filter(Boolean);
    return [left, notes.length > 0 ? `${spec.description} (${notes.join('; ')})` : spec.description];
  });
  return `${text}\noptions:\n${columns([...options, ['-h, --help', 'show this help']])}`;
}

/** Each command's usage line and what it does: the top-level help, or one group's. */
export function commandList(commands: Readonly<Record<string, Command>>): string {
  return Object.entries(commands)
    .map(([name, command]) => `  booking ${usageLine(name, command)}\n      ${command.summary}\n`)
    .join('');
}

import { parseArgs } from 'node:util';
import { nearestName } from '../lib/text.js';
import { UsageError, type Command, type CommandOptions, type OptionValues } from './command.js';

interface ParseArgsOption {
  type: 'string' | 'boolean';
  default?: string | boolean;
}

export interface CommandLine<O extends CommandOptions> {
  options: OptionValues<O>;
  positionals: string[];
}

function strictParse(args: readonly string[], options: Record<string, ParseArgsOption>) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true });
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(error.message.split('\n')[0] ?? error.message);
    }
    throw error;
  }
}

/** The words after a command's name, checked against its declaration; a mistake is a UsageError. */
export function parseCommandLine<O extends CommandOptions>(command: Command<O>, args: readonly string[]): CommandLine<O> {
  const options: Record<string, ParseArgsOption> = {};
  for (const [name, option] of Object.entries(command.options)) {
    options[name] = option.type === 'boolean' ? { type: 'boolean', default: false } : { type: 'string', ...(option.default === undefined ? {} : { default: option.default }) };
  }
  // parseArgs' own message for an unknown option runs to three lines of advice on positionals.
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const unknown = tokens.find((token) => token.kind === 'option' && !Object.hasOwn(options, token.name));
  if (unknown?.kind === 'option') {
    const near = nearestName(unknown.name, Object.keys(options));
    throw new UsageError(`unknown option: ${unknown.rawName}${near === undefined ? '' : `; did you mean --${near}?`}`);
  }

  const parsed = strictParse(args, options);

  const declared = command.arguments ?? [];
  const { positionals } = parsed;
  // The extra word itself is not repeated: it may be a secret given in the wrong place.
  if (positionals.length > declared.length) {
    throw new UsageError(declared.length === 0 ? 'this command takes no arguments' : `too many arguments: give ${declared.map((a) => a.name).join(' ')}`);
  }
  const missingArgument = declared.slice(positionals.length).find((a) => !a.optional);
  if (missingArgument) throw new UsageError(`${missingArgument.name} is required`);
  const missingOption = Object.entries(command.options).find(([name, option]) => option.required && (parsed.values[name] ?? false) === false);
  if (missingOption) throw new UsageError(`--${missingOption[0]} is required`);
  // parseArgs typed its values by the options object built above; they are those of the declaration.
  return { options: parsed.values as OptionValues<O>, positionals };
}

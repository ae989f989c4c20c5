import { parseArgs } from 'node:util';
import { printJson, UsageError, type Command } from '../../cli/command.js';
import { changeSettings, getSettings, isSettingKey, parseSetting, SETTING_KEYS } from './service.js';

export const settingsGet: Command = {
  usage: `settings get [${SETTING_KEYS.join('|')}] [--json]`,
  async run({ db, io, args }) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
    const settings = await getSettings(db);
    const [key] = positionals;
    if (key !== undefined) {
      if (!isSettingKey(key)) throw new UsageError(`unknown setting "${key}"`);
      if (values.json) printJson(io, settings[key]);
      else io.stdout.write(`${settings[key]}\n`);
      return;
    }
    if (values.json) printJson(io, settings);
    else for (const k of SETTING_KEYS) io.stdout.write(`${k} = ${settings[k]}\n`);
  },
};

export const settingsSet: Command = {
  usage: `settings set ${SETTING_KEYS.join('|')} VALUE [--json]`,
  async run({ db, io, args }) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
    const [key, value] = positionals;
    if (key === undefined || value === undefined || positionals.length !== 2) throw new UsageError('give a setting name and a value');
    if (!isSettingKey(key)) throw new UsageError(`unknown setting "${key}"`);
    await changeSettings(db, { [key]: parseSetting(key, value) });
    const settings = await getSettings(db);
    if (values.json) printJson(io, settings);
    else io.stdout.write(`${key} = ${settings[key]}\n`);
  },
};

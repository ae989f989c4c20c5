import { defineCommand, JSON_OPTION, printJson, UsageError } from '../../cli/command.js';
import { changeSettings, getSettings, isSettingKey, parseSetting, SETTING_KEYS } from './service.js';

const KEY_ARGUMENT = { name: 'KEY', description: `one of ${SETTING_KEYS.join(', ')}` };

export const settingsGet = defineCommand({
  summary: "Show the site settings, or one setting's value.",
  arguments: [{ ...KEY_ARGUMENT, optional: true }],
  options: { json: JSON_OPTION },
  async run({ db, io, options: values, positionals }) {
    const settings = await getSettings(db);
    const [key] = positionals;
    if (key !== undefined) {
      if (!isSettingKey(key)) throw new UsageError(`unknown setting "${key}"`);
      if (values.json) printJson(io, settings[key]);
      else io.stdout.write(`${String(settings[key])}\n`);
      return;
    }
    if (values.json) printJson(io, settings);
    else for (const k of SETTING_KEYS) io.stdout.write(`${k} = ${String(settings[k])}\n`);
  },
});

export const settingsSet = defineCommand({
  summary: 'Change one site setting, checked as PUT /settings checks it.',
  arguments: [KEY_ARGUMENT, { name: 'VALUE', description: 'the new value (a timezone by its IANA name, minutes and days as integers, a currency code, reminder offsets as a list such as 1440,120 or "" for none, true or false)' }],
  options: { json: JSON_OPTION },
  async run({ db, io, options: values, positionals }) {
    const [key = '', value = ''] = positionals;
    if (!isSettingKey(key)) throw new UsageError(`unknown setting "${key}"`);
    await changeSettings(db, { [key]: parseSetting(key, value) });
    const settings = await getSettings(db);
    if (values.json) printJson(io, settings);
    else io.stdout.write(`${key} = ${String(settings[key])}\n`);
  },
});

import { parseArgs } from 'node:util';
import { printJson, UsageError, type Command } from '../../cli/command.js';
import { changeSettings, getSettings, parseSetting } from '../settings/index.js';
import { seedDemo } from './seed.js';

export const seed: Command = {
  usage: 'seed --demo [--timezone ZONE] [--json]',
  async run({ db, io, args }) {
    const { values } = parseArgs({
      args,
      options: { demo: { type: 'boolean', default: false }, timezone: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    if (!values.demo) throw new UsageError('--demo is required: it is the only data set there is');
    if (values.timezone !== undefined) await changeSettings(db, { timezone: parseSetting('timezone', values.timezone) });
    const created = await seedDemo(db);
    const { timezone } = await getSettings(db);
    if (values.json) {
      printJson(io, { timezone, created });
      return;
    }
    const added = Object.entries(created)
      .filter(([, n]) => n > 0)
      .map(([what, n]) => `${n} ${what}`);
    io.stdout.write(added.length > 0 ? `Demo data added: ${added.join(', ')}.\n` : 'Demo data is already present; nothing added.\n');
    io.stdout.write(`Site timezone: ${timezone}. Try: GET /booking-api/v1/agents?include=services\n`);
  },
};

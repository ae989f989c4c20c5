import { defineCommand, JSON_OPTION, printJson } from '../../cli/command.js';
import { changeSettings, getSettings, parseSetting } from '../settings/index.js';
import { seedDemo } from './seed.js';

export const seed = defineCommand({
  summary: 'Add the demo site (locations, agents, services, customers); safe to run again, it adds nothing twice.',
  options: {
    demo: { type: 'boolean', required: true, description: 'the demo data set, the only one there is' },
    timezone: { type: 'string', value: 'ZONE', description: 'set the site timezone (IANA name) first' },
    json: JSON_OPTION,
  },
  async run({ db, io, options: values }) {
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
});

import { parseArgs } from 'node:util';
import { positiveInteger, printJson, printTable, UsageError, type Command } from '../../cli/command.js';
import { createKey, listKeys, revokeKey } from './service.js';

const LIST_COLUMNS = ['id', 'name', 'type', 'prefix', 'permissions', 'status', 'per_minute', 'per_hour', 'created_at', 'last_used_at'];

export const keysCreate: Command = {
  usage: 'keys create --name NAME [--type test|live] [--permissions LIST] [--per-minute N] [--per-hour N] [--json]',
  async run({ db, io, args }) {
    const { values } = parseArgs({
      args,
      options: {
        name: { type: 'string' },
        type: { type: 'string', default: 'test' },
        permissions: { type: 'string', default: '*' },
        'per-minute': { type: 'string' },
        'per-hour': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (!values.name) throw new UsageError('--name is required');
    if (values.type !== 'test' && values.type !== 'live') throw new UsageError('--type must be test or live');
    const created = await createKey(db, {
      name: values.name,
      type: values.type,
      permissions: values.permissions.split(',').map((p) => p.trim()).filter(Boolean),
      perMinute: positiveInteger('--per-minute', values['per-minute']),
      perHour: positiveInteger('--per-hour', values['per-hour']),
    });
    const { id, name, type, key, permissions, per_minute, per_hour } = created;
    if (values.json) {
      printJson(io, { id, name, type, key, permissions, per_minute, per_hour });
      return;
    }
    io.stdout.write(`Created key ${id} "${name}" (${type}; ${permissions.join(',')}; ${per_minute}/min, ${per_hour}/h)\n`);
    io.stdout.write(`\n  ${key}\n\nThis is the only time the key is shown; store it now.\n`);
  },
};

export const keysList: Command = {
  usage: 'keys list [--json]',
  async run({ db, io, args }) {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
    const keys = await listKeys(db);
    if (values.json) printJson(io, keys);
    else printTable(io, keys as unknown as Record<string, unknown>[], LIST_COLUMNS);
  },
};

export const keysRevoke: Command = {
  usage: 'keys revoke ID [--json]',
  async run({ db, io, args }) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
    if (positionals.length !== 1) throw new UsageError('give exactly one key id');
    const key = await revokeKey(db, positiveInteger('ID', positionals[0]) ?? 0);
    if (values.json) printJson(io, key);
    else io.stdout.write(`Revoked key ${key.id} "${key.name}"; it is refused from the next request on.\n`);
  },
};

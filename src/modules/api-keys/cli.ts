import { defineCommand, JSON_OPTION, positiveInteger, printJson, printTable, UsageError } from '../../cli/command.js';
import { createKey, DEFAULT_LIMITS, listKeys, revokeKey } from './service.js';

const LIST_COLUMNS = ['id', 'name', 'type', 'prefix', 'permissions', 'status', 'per_minute', 'per_hour', 'created_at', 'last_used_at'];

const { test, live } = DEFAULT_LIMITS;

export const keysCreate = defineCommand({
  summary: 'Create an API key. The key is printed this once; only its hash is stored.',
  options: {
    name: { type: 'string', value: 'NAME', required: true, description: 'what the key is called in lists, the admin pages and the audit' },
    type: { type: 'string', value: 'test|live', default: 'test', description: 'a test key (bk_test_) is refused when NODE_ENV=production' },
    permissions: { type: 'string', value: 'LIST', default: '*', description: 'comma-separated permissions (bookings:read,customers:read, …) or * for all' },
    'per-minute': { type: 'string', value: 'N', description: `requests per minute (default ${test.perMinute} for a test key, ${live.perMinute} for a live one)` },
    'per-hour': { type: 'string', value: 'N', description: `requests per hour (default ${test.perHour} for a test key, ${live.perHour} for a live one)` },
    json: JSON_OPTION,
  },
  async run({ db, io, options: values }) {
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
});

export const keysList = defineCommand({
  summary: 'List the API keys: prefix, permissions, status, limits, created and last used; never the key.',
  options: { json: JSON_OPTION },
  async run({ db, io, options: values }) {
    const keys = await listKeys(db);
    if (values.json) printJson(io, keys);
    else printTable(io, keys as unknown as Record<string, unknown>[], LIST_COLUMNS);
  },
});

export const keysRevoke = defineCommand({
  summary: 'Revoke an API key; it is refused from the next request on.',
  arguments: [{ name: 'ID', description: 'the key id, as keys list shows it' }],
  options: { json: JSON_OPTION },
  async run({ db, io, options: values, positionals }) {
    const key = await revokeKey(db, positiveInteger('ID', positionals[0]) ?? 0);
    if (values.json) printJson(io, key);
    else io.stdout.write(`Revoked key ${key.id} "${key.name}"; it is refused from the next request on.\n`);
  },
});

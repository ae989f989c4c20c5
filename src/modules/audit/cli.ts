import { parseArgs } from 'node:util';
import { positiveInteger, printJson, printTable, type Command } from '../../cli/command.js';
import { listEntries } from './repository.js';

export const audit: Command = {
  usage: 'audit [--key ID] [--limit N] [--json]',
  async run({ db, io, args }) {
    const { values } = parseArgs({
      args,
      options: { key: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    const entries = await listEntries(db, {
      keyId: positiveInteger('--key', values.key),
      limit: Math.min(positiveInteger('--limit', values.limit) ?? 100, 10_000),
    });
    if (values.json) printJson(io, entries);
    else printTable(io, entries, ['id', 'at', 'key_id', 'method', 'path', 'status', 'ip', 'duration_ms']);
  },
};

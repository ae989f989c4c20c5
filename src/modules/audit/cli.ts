import { defineCommand, JSON_OPTION, positiveInteger, printJson, printTable } from '../../cli/command.js';
import { listEntries } from './repository.js';

const MAX_LIMIT = 10_000;

export const audit = defineCommand({
  summary: 'List audited API requests, newest first: key, method, path, status, client address, duration.',
  options: {
    key: { type: 'string', value: 'ID', description: "only this key's requests (ids as keys list shows them)" },
    limit: { type: 'string', value: 'N', description: `at most N entries (default 100, at most ${MAX_LIMIT.toLocaleString('en')})` },
    json: JSON_OPTION,
  },
  async run({ db, io, options: values }) {
    const entries = await listEntries(db, {
      keyId: positiveInteger('--key', values.key),
      limit: Math.min(positiveInteger('--limit', values.limit) ?? 100, MAX_LIMIT),
    });
    if (values.json) printJson(io, entries);
    else printTable(io, entries, ['id', 'at', 'key_id', 'method', 'path', 'status', 'ip', 'duration_ms']);
  },
});

import { parseArgs } from 'node:util';
import { positiveInteger, printJson, printTable, UsageError, type Command } from '../../cli/command.js';
import { listOutbox } from './repository.js';
import { OUTBOX_STATUSES, type OutboxStatus } from './table.js';

export const outboxList: Command = {
  usage: `outbox list [--status ${OUTBOX_STATUSES.join('|')}] [--limit N] [--json]`,
  async run({ db, io, args }) {
    const { values } = parseArgs({
      args,
      options: { status: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    const status = values.status;
    if (status !== undefined && !(OUTBOX_STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(`--status must be one of ${OUTBOX_STATUSES.join(', ')}`);
    }
    const rows = await listOutbox(db, {
      status: status as OutboxStatus | undefined,
      limit: Math.min(positiveInteger('--limit', values.limit) ?? 100, 10_000),
      offset: 0,
    });
    const mails = rows.map((r) => ({
      to: r.recipient,
      subject: r.subject,
      kind: r.kind,
      status: r.status,
      attempts: r.attempts,
      created_at: r.created_at,
    }));
    if (values.json) printJson(io, mails);
    else printTable(io, mails, ['created_at', 'kind', 'status', 'attempts', 'to', 'subject']);
  },
};

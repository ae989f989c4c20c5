import { defineCommand, JSON_OPTION, positiveInteger, printJson, printTable, UsageError } from '../../cli/command.js';
import { listOutbox } from './repository.js';
import { OUTBOX_STATUSES, type OutboxStatus } from './table.js';

const MAX_LIMIT = 10_000;

export const outboxList = defineCommand({
  summary: 'List the mail in the outbox, newest first, with its delivery status and attempts.',
  options: {
    status: { type: 'string', value: OUTBOX_STATUSES.join('|'), description: 'only mail in this state' },
    limit: { type: 'string', value: 'N', description: `at most N mails (default 100, at most ${MAX_LIMIT.toLocaleString('en')})` },
    json: JSON_OPTION,
  },
  async run({ db, io, options: values }) {
    const status = values.status;
    if (status !== undefined && !(OUTBOX_STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(`--status must be one of ${OUTBOX_STATUSES.join(', ')}`);
    }
    const rows = await listOutbox(db, {
      status: status as OutboxStatus | undefined,
      limit: Math.min(positiveInteger('--limit', values.limit) ?? 100, MAX_LIMIT),
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
});

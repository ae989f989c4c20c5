import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS, useTestApp } from '../helper.js';

describe.each(DIALECTS)('database behaviour both engines share (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('lower() folds non-ASCII letters alike', async () => {
    const { rows } = await sql<{ folded: string }>`select lower(${'ÉMILE ÜBER ÇA'}) as folded`.execute(t.db);
    expect(rows[0]?.folded).toBe('émile über ça');
  });

  it('returns counts and sums of integers as JavaScript numbers', async () => {
    await t.db.insertInto('audit_log').values({ at: 'x', key_id: null, method: 'GET', path: '/', status: 200, ip: '::1', duration_ms: 1 }).execute();
    const { rows } = await sql<{ n: unknown; total: unknown }>`select count(*) as n, sum(status) as total from audit_log`.execute(t.db);
    expect(rows[0]).toEqual({ n: 1, total: 200 });
  });
});

/**
 * Recognises constraint violations from either driver, so that a check-then-write race still ends
 * in the domain's own error: better-sqlite3 reports `SQLITE_CONSTRAINT_*` codes with the table and
 * column in the message, pg reports SQLSTATE codes with the constraint and key in `detail`.
 */
interface DriverError {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
  constraint?: unknown;
}

function driverError(error: unknown): DriverError | undefined {
  return typeof error === 'object' && error !== null ? error : undefined;
}

/** A unique violation on `table.column` (a single-column unique constraint or index). */
export function isUniqueViolation(error: unknown, table: string, column: string): boolean {
  const e = driverError(error);
  if (!e) return false;
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return typeof e.message === 'string' && e.message.includes(`${table}.${column}`);
  }
  if (e.code === '23505') {
    const detail = typeof e.detail === 'string' ? e.detail : '';
    const constraint = typeof e.constraint === 'string' ? e.constraint : '';
    return detail.startsWith(`Key (${column})=`) && (constraint === '' || constraint.startsWith(`${table}_`));
  }
  return false;
}

/** A write refused because another row still references (or would reference a missing) row. */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = driverError(error);
  return e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || e?.code === '23503';
}

/**
 * A bound on waiting for an answer at all: far above the bounds the tests configure (a second at
 * most), below the waits those bounds replace (5 s for SQLite's lock, none for PostgreSQL).
 */
export const ANSWERS_WITHIN_MS = 4_000;

/** The promise's outcome, or a failure if it has none within `ms` (it may still settle later). */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}


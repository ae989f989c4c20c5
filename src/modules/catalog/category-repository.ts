import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { lockedTransaction } from '../../db/transactions.js';
import { AppError } from '../../core/errors.js';
import { offsetOf, type PageRequest } from '../../core/pagination.js';
import { nowIso } from '../../lib/time.js';
import type { CategoriesTable } from './table.js';
import { CATALOG_LOCK } from '../../core/locks.js';

export type CategoryTable = 'service_categories' | 'location_categories';
export type CategoryRow = Selectable<CategoriesTable>;

/** The records whose category_id points into each category table. */
const REFERENCING = { service_categories: 'services', location_categories: 'locations' } as const;

export async function listCategories(db: Db, table: CategoryTable, page: PageRequest): Promise<{ rows: CategoryRow[]; total: number }> {
  const { total } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await db.selectFrom(table).selectAll().orderBy('name').orderBy('id').limit(page.perPage).offset(offsetOf(page)).execute();
  return { rows, total: Number(total) };
}

export function findCategory(db: Db, table: CategoryTable, id: number): Promise<CategoryRow | undefined> {
  return db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
}

export function findCategoryByName(db: Db, table: CategoryTable, name: string): Promise<CategoryRow | undefined> {
  return db.selectFrom(table).selectAll().where('name', '=', name).orderBy('id').executeTakeFirst();
}

export function insertCategory(db: Db, table: CategoryTable, name: string): Promise<CategoryRow> {
  const at = nowIso();
  return db.insertInto(table).values({ name, created_at: at, updated_at: at }).returningAll().executeTakeFirstOrThrow();
}

export function renameCategory(db: Db, table: CategoryTable, id: number, name: string): Promise<CategoryRow | undefined> {
  return db.updateTable(table).set({ name, updated_at: nowIso() }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes a category; the records in it keep existing, without a category. */
export function deleteCategory(db: Db, table: CategoryTable, id: number): Promise<boolean> {
  // Exclusively, as any removal from the catalog: writes that set a category_id hold it shared.
  return lockedTransaction(db, [CATALOG_LOCK], async (trx) => {
    await trx.updateTable(REFERENCING[table]).set({ category_id: null }).where('category_id', '=', id).execute();
    const result = await trx.deleteFrom(table).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  });
}

/** 400 invalid_request when category_id names no category (contract §5: unknown referenced record). */
export async function assertCategoryExists(db: Db, table: CategoryTable, id: number | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await findCategory(db, table, id))) {
    throw new AppError('invalid_request', `Category ${id} does not exist`, { category_id: `category ${id} does not exist` });
  }
}

import type { Db } from '../../db/database.js';
import { referencingCatalog } from '../../db/transactions.js';
import { notFound } from '../../core/errors.js';
import { FieldErrors } from '../../core/field-errors.js';
import { pageOf, type Page, type PageRequest } from '../../core/pagination.js';
import { localDateTime, nowIso } from '../../lib/time.js';
import type { Site } from '../../core/site.js';
import { assertCategoryExists, deleteUnlessBooked } from '../catalog/index.js';
import type { LocationsTable } from './table.js';
import * as repository from './repository.js';

export interface LocationInput {
  name?: string;
  full_address?: string;
  status?: LocationsTable['status'];
  category_id?: number | null;
  order_number?: number;
  selection_image_id?: number;
}

export function renderLocation(row: repository.LocationRow, timezone: string) {
  return {
    id: row.id,
    name: row.name,
    full_address: row.full_address,
    status: row.status,
    category_id: row.category_id,
    order_number: row.order_number,
    selection_image_id: row.selection_image_id,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

/** Field rules beyond the schema's types (422), and the trimmed text values. */
async function checked(db: Db, input: LocationInput): Promise<LocationInput> {
  const errors = new FieldErrors();
  const name = input.name?.trim();
  const full_address = input.full_address?.trim();
  if (name !== undefined && (name.length < 1 || name.length > 200)) errors.add('name', 'must be 1 to 200 characters');
  if (full_address !== undefined && full_address.length > 500) errors.add('full_address', 'must be at most 500 characters');
  errors.throwIfAny('The location data is invalid');
  await assertCategoryExists(db, 'location_categories', input.category_id);
  // Field by field: the values go into the UPDATE as they are, so nothing the schema does not name may pass.
  const { status, category_id, order_number, selection_image_id } = input;
  return { name, full_address, status, category_id, order_number, selection_image_id };
}

export async function listLocations(
  db: Db,
  site: Site,
  filter: repository.LocationFilter,
  page: PageRequest,
): Promise<{ data: ReturnType<typeof renderLocation>[]; page: Page }> {
  const [{ rows, total }, { timezone }] = await Promise.all([repository.listLocations(db, filter, page), site()]);
  return { data: rows.map((r) => renderLocation(r, timezone)), page: pageOf(page, total) };
}

export async function getLocation(db: Db, site: Site, id: number) {
  const row = await repository.findLocation(db, id);
  if (!row) throw notFound('location_not_found', 'Location', id);
  return renderLocation(row, (await site()).timezone);
}

export async function createLocation(db: Db, site: Site, input: LocationInput & { name: string }) {
  const at = nowIso();
  const row = await referencingCatalog(db, async (trx) => {
    const values = await checked(trx, input);
    return repository.insertLocation(trx, {
      name: values.name ?? input.name,
      full_address: values.full_address ?? '',
      status: values.status ?? 'active',
      category_id: values.category_id ?? null,
      order_number: values.order_number ?? 0,
      selection_image_id: values.selection_image_id ?? 0,
      created_at: at,
      updated_at: at,
    });
  });
  return renderLocation(row, (await site()).timezone);
}

export async function updateLocation(db: Db, site: Site, id: number, input: LocationInput) {
  if (!(await repository.findLocation(db, id))) throw notFound('location_not_found', 'Location', id);
  const row = await referencingCatalog(db, async (trx) => repository.updateLocation(trx, id, { ...(await checked(trx, input)), updated_at: nowIso() }));
  if (!row) throw notFound('location_not_found', 'Location', id);
  return renderLocation(row, (await site()).timezone);
}

/** Deletes the record, or retires it when past bookings keep it; 409 while upcoming bookings need it. */
export async function deleteLocation(db: Db, id: number): Promise<void> {
  if (!(await deleteUnlessBooked(db, repository.locationRemoval, id))) throw notFound('location_not_found', 'Location', id);
}

import type { Db } from '../../db/database.js';
import { referencingCatalog } from '../../db/transactions.js';
import { AppError, notFound } from '../../core/errors.js';
import { FieldErrors } from '../../core/field-errors.js';
import { pageOf, type Page, type PageRequest } from '../../core/pagination.js';
import { formatCents, toCents } from '../../lib/money.js';
import { localDateTime, nowIso } from '../../lib/time.js';
import type { Site } from '../../core/site.js';
import { assertCategoryExists } from './category-repository.js';
import { deleteUnlessBooked } from './in-use.js';
import * as repository from './repository.js';
import type { ServicesTable } from './table.js';
import { MAX_ADVANCE_DAYS, MAX_BUFFER_MINUTES } from '../../core/limits.js';

export type ServiceInclude = 'category' | 'agents' | 'locations';

export interface ServiceInput {
  name?: string;
  short_description?: string;
  description?: string;
  duration?: number;
  price_min?: number | string;
  price_max?: number | string;
  charge_amount?: number | string;
  deposit_amount?: number | string;
  capacity_min?: number;
  capacity_max?: number;
  buffer_before?: number;
  buffer_after?: number;
  min_notice_minutes?: number | null;
  max_advance_days?: number | null;
  order_number?: number;
  selection_image_id?: number;
  status?: ServicesTable['status'];
  visibility?: ServicesTable['visibility'];
  category_id?: number | null;
  agent_ids?: number[];
}

/** Largest amount accepted: 10 million in the currency, far beyond any appointment. */
const MAX_CENTS = 1_000_000_000;

export function renderService(row: repository.ServiceRow, timezone: string) {
  return {
    id: row.id,
    name: row.name,
    short_description: row.short_description,
    description: row.description,
    duration: row.duration,
    price_min: formatCents(row.price_min_cents),
    price_max: formatCents(row.price_max_cents),
    charge_amount: formatCents(row.charge_amount_cents),
    deposit_amount: formatCents(row.deposit_amount_cents),
    capacity_min: row.capacity_min,
    capacity_max: row.capacity_max,
    buffer_before: row.buffer_before,
    buffer_after: row.buffer_after,
    min_notice_minutes: row.min_notice_minutes,
    max_advance_days: row.max_advance_days,
    order_number: row.order_number,
    selection_image_id: row.selection_image_id,
    status: row.status,
    visibility: row.visibility,
    category_id: row.category_id,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

type RenderedService = ReturnType<typeof renderService> & {
  category?: { id: number; name: string } | null;
  agents?: { id: number; first_name: string; last_name: string }[];
  locations?: { id: number; name: string; full_address: string }[];
};

function groupBy<T extends { service_id: number }>(rows: readonly T[]): Map<number, Omit<T, 'service_id'>[]> {
  const groups = new Map<number, Omit<T, 'service_id'>[]>();
  for (const { service_id, ...rest } of rows) {
    const group = groups.get(service_id) ?? [];
    group.push(rest);
    groups.set(service_id, group);
  }
  return groups;
}

async function present(db: Db, site: Site, rows: readonly repository.ServiceRow[], include: ReadonlySet<ServiceInclude>): Promise<RenderedService[]> {
  const ids = rows.map((r) => r.id);
  const categoryIds = [...new Set(rows.flatMap((r) => (r.category_id === null ? [] : [r.category_id])))];
  const [{ timezone }, categories, agents, locations] = await Promise.all([
    site(),
    include.has('category') ? repository.categoriesOf(db, categoryIds) : [],
    include.has('agents') ? repository.agentsOf(db, ids) : [],
    include.has('locations') ? repository.locationsOf(db, ids) : [],
  ]);
  const categoryById = new Map(categories.map((c) => [c.id, c]));
  const agentsByService = groupBy(agents);
  const locationsByService = groupBy(locations);
  return rows.map((row) => {
    const rendered: RenderedService = renderService(row, timezone);
    if (include.has('category')) rendered.category = row.category_id === null ? null : (categoryById.get(row.category_id) ?? null);
    if (include.has('agents')) rendered.agents = agentsByService.get(row.id) ?? [];
    if (include.has('locations')) rendered.locations = locationsByService.get(row.id) ?? [];
    return rendered;
  });
}

function amount(field: string, value: number | string | undefined, errors: FieldErrors): number | undefined {
  if (value === undefined) return undefined;
  const cents = toCents(value);
  if (cents === undefined || cents < 0 || cents > MAX_CENTS) {
    errors.add(field, 'must be a decimal amount from 0 to 10000000');
    return undefined;
  }
  return cents;
}

/** Field rules beyond the schema's types; `current` is the stored service on update. */
async function checked(db: Db, input: ServiceInput, current?: repository.ServiceRow) {
  const errors = new FieldErrors();
  const name = input.name?.trim();
  if (name !== undefined && (name.length < 1 || name.length > 200)) errors.add('name', 'must be 1 to 200 characters');
  if (input.short_description !== undefined && input.short_description.length > 1000) {
    errors.add('short_description', 'must be at most 1000 characters');
  }
  if (input.description !== undefined && input.description.length > 20000) errors.add('description', 'must be at most 20000 characters');
  if (input.duration !== undefined && (input.duration < 1 || input.duration > 1440)) errors.add('duration', 'must be 1 to 1440 minutes');
  const capacityMin = input.capacity_min ?? current?.capacity_min ?? 1;
  const capacityMax = input.capacity_max ?? current?.capacity_max ?? 1;
  if (capacityMin < 1 || capacityMin > 1000) errors.add('capacity_min', 'must be 1 to 1000');
  if (capacityMax < 1 || capacityMax > 1000) errors.add('capacity_max', 'must be 1 to 1000');
  else if (capacityMax < capacityMin) errors.add('capacity_max', `must be at least capacity_min (${capacityMin})`);
  for (const field of ['buffer_before', 'buffer_after'] as const) {
    const minutes = input[field];
    if (minutes !== undefined && (minutes < 0 || minutes > MAX_BUFFER_MINUTES)) errors.add(field, `must be 0 to ${MAX_BUFFER_MINUTES} minutes`);
  }
  const notice = input.min_notice_minutes;
  if (notice !== undefined && notice !== null && (notice < 0 || notice > 525600)) errors.add('min_notice_minutes', 'must be null (the site setting min_lead_minutes) or 0 to 525600');
  const advance = input.max_advance_days;
  if (advance !== undefined && advance !== null && (advance < 1 || advance > MAX_ADVANCE_DAYS)) {
    errors.add('max_advance_days', `must be null (the site setting max_advance_days) or 1 to ${MAX_ADVANCE_DAYS}`);
  }
  const changes = {
    name,
    short_description: input.short_description,
    description: input.description,
    duration: input.duration,
    price_min_cents: amount('price_min', input.price_min, errors),
    price_max_cents: amount('price_max', input.price_max, errors),
    charge_amount_cents: amount('charge_amount', input.charge_amount, errors),
    deposit_amount_cents: amount('deposit_amount', input.deposit_amount, errors),
    capacity_min: input.capacity_min,
    capacity_max: input.capacity_max,
    buffer_before: input.buffer_before,
    buffer_after: input.buffer_after,
    min_notice_minutes: input.min_notice_minutes,
    max_advance_days: input.max_advance_days,
    order_number: input.order_number,
    selection_image_id: input.selection_image_id,
    status: input.status,
    visibility: input.visibility,
    category_id: input.category_id,
  };
  const priceMin = changes.price_min_cents ?? current?.price_min_cents ?? 0;
  const priceMax = changes.price_max_cents ?? current?.price_max_cents ?? 0;
  // A price_max of 0, the default, sets no upper bound.
  if (priceMax > 0 && priceMax < priceMin) errors.add('price_max', `must be 0 (no maximum) or at least price_min (${formatCents(priceMin)})`);
  errors.throwIfAny('The service data is invalid');
  await assertCategoryExists(db, 'service_categories', input.category_id);
  const agentIds = input.agent_ids === undefined ? undefined : [...new Set(input.agent_ids)];
  const missing = await repository.missingAgents(db, agentIds ?? []);
  if (missing.length > 0) {
    throw new AppError('invalid_request', `Unknown agent: ${missing.join(', ')}`, { agent_ids: `no agent with id ${missing.join(', ')}` });
  }
  return { changes, agentIds };
}

export async function listServices(
  db: Db,
  site: Site,
  filter: repository.ServiceFilter,
  sort: { by: repository.ServiceSort; direction: 'asc' | 'desc' },
  page: PageRequest,
  include: ReadonlySet<ServiceInclude>,
): Promise<{ data: RenderedService[]; page: Page }> {
  const { rows, total } = await repository.listServices(db, filter, sort, page);
  return { data: await present(db, site, rows, include), page: pageOf(page, total) };
}

export async function getService(db: Db, site: Site, id: number, include: ReadonlySet<ServiceInclude>): Promise<RenderedService> {
  const row = await repository.findService(db, id);
  if (!row) throw notFound('service_not_found', 'Service', id);
  return (await present(db, site, [row], include))[0]!;
}

/** POST /services with the spec's defaults. */
export async function createService(db: Db, site: Site, input: ServiceInput & { name: string }): Promise<RenderedService> {
  const at = nowIso();
  const { row, agentIds } = await referencingCatalog(db, async (trx) => {
    const { changes: c, agentIds } = await checked(trx, input);
    const created = await repository.insertService(trx, {
      name: c.name ?? input.name,
      short_description: c.short_description ?? '',
      description: c.description ?? '',
      duration: c.duration ?? 60,
      price_min_cents: c.price_min_cents ?? 0,
      price_max_cents: c.price_max_cents ?? 0,
      charge_amount_cents: c.charge_amount_cents ?? 0,
      deposit_amount_cents: c.deposit_amount_cents ?? 0,
      capacity_min: c.capacity_min ?? 1,
      capacity_max: c.capacity_max ?? 1,
      buffer_before: c.buffer_before ?? 0,
      buffer_after: c.buffer_after ?? 0,
      min_notice_minutes: c.min_notice_minutes ?? null,
      max_advance_days: c.max_advance_days ?? null,
      order_number: c.order_number ?? 0,
      selection_image_id: c.selection_image_id ?? 0,
      status: c.status ?? 'active',
      visibility: c.visibility ?? 'visible',
      category_id: c.category_id ?? null,
      created_at: at,
      updated_at: at,
    });
    if (agentIds) await repository.setServiceAgents(trx, created.id, agentIds);
    return { row: created, agentIds };
  });
  return (await present(db, site, [row], new Set(agentIds ? ['agents'] : [])))[0]!;
}

export async function updateService(db: Db, site: Site, id: number, input: ServiceInput): Promise<RenderedService> {
  const current = await repository.findService(db, id);
  if (!current) throw notFound('service_not_found', 'Service', id);
  const { row, agentIds } = await referencingCatalog(db, async (trx) => {
    const { changes, agentIds } = await checked(trx, input, current);
    const updated = await repository.updateService(trx, id, { ...changes, updated_at: nowIso() });
    if (!updated) throw notFound('service_not_found', 'Service', id);
    if (agentIds) await repository.setServiceAgents(trx, id, agentIds);
    return { row: updated, agentIds };
  });
  return (await present(db, site, [row], new Set(agentIds ? ['agents'] : [])))[0]!;
}

/** Deletes the record, or retires it when past bookings keep it; 409 while upcoming bookings need it. */
export async function deleteService(db: Db, id: number): Promise<void> {
  if (!(await deleteUnlessBooked(db, repository.serviceRemoval, id))) throw notFound('service_not_found', 'Service', id);
}

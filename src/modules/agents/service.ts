import type { Db } from '../../db/database.js';
import { referencingCatalog } from '../../db/transactions.js';
import { AppError, notFound } from '../../core/errors.js';
import { FieldErrors } from '../../core/field-errors.js';
import { pageOf, type Page, type PageRequest } from '../../core/pagination.js';
import { formatCents, toCents } from '../../lib/money.js';
import { localDateTime, nowIso } from '../../lib/time.js';
import type { Site } from '../../core/site.js';
import { deleteUnlessBooked } from '../catalog/index.js';
import { checkWeekly, type Weekly, type WeeklyInput } from '../schedules/index.js';
import { FEATURE_LIMITS, MAX_FEATURES } from './schemas.js';
import * as repository from './repository.js';
import type { AgentsTable } from './table.js';
import { MAX_BUFFER_MINUTES } from '../../core/limits.js';

export type AgentInclude = 'services' | 'locations';

export interface Feature {
  label: string;
  value: string;
}

export interface AgentInput {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string | null;
  display_name?: string | null;
  bio?: string | null;
  features?: Feature[] | string | null;
  status?: AgentsTable['status'];
  service_ids?: number[];
  location_ids?: number[];
  services?: {
    service_id: number;
    custom_price?: number | string | null;
    custom_duration?: number | null;
    custom_hours?: WeeklyInput | null;
    buffer_before?: number | null;
    buffer_after?: number | null;
  }[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[\d\s().-]{3,}$/;
const MAX_CENTS = 1_000_000_000;

export function renderAgent(row: repository.AgentRow, timezone: string) {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    display_name: row.display_name ?? `${row.first_name} ${row.last_name}`,
    email: row.email,
    phone: row.phone,
    bio: row.bio,
    features: row.features ?? '[]',
    status: row.status,
    created_at: localDateTime(row.created_at, timezone),
    updated_at: localDateTime(row.updated_at, timezone),
  };
}

type AgentServiceView = {
  id: number;
  name: string;
  is_custom_hours: boolean;
  is_custom_price: boolean;
  is_custom_duration: boolean;
  custom_price: string | null;
  custom_duration: number | null;
  custom_hours: Weekly | null;
  buffer_before: number | null;
  buffer_after: number | null;
};

type RenderedAgent = ReturnType<typeof renderAgent> & {
  services?: AgentServiceView[];
  locations?: { id: number; name: string }[];
};

function groupBy<T extends { agent_id: number }, U>(rows: readonly T[], view: (row: T) => U): Map<number, U[]> {
  const groups = new Map<number, U[]>();
  for (const row of rows) {
    const group = groups.get(row.agent_id) ?? [];
    group.push(view(row));
    groups.set(row.agent_id, group);
  }
  return groups;
}

async function present(db: Db, site: Site, rows: readonly repository.AgentRow[], include: ReadonlySet<AgentInclude>): Promise<RenderedAgent[]> {
  const ids = rows.map((r) => r.id);
  const [{ timezone }, services, locations] = await Promise.all([
    site(),
    include.has('services') ? repository.servicesOf(db, ids) : [],
    include.has('locations') ? repository.locationsOf(db, ids) : [],
  ]);
  const servicesByAgent = groupBy(services, (s) => ({
    id: s.id,
    name: s.name,
    is_custom_hours: s.custom_hours !== null,
    is_custom_price: s.custom_price_cents !== null,
    is_custom_duration: s.custom_duration !== null,
    custom_price: s.custom_price_cents === null ? null : formatCents(s.custom_price_cents),
    custom_duration: s.custom_duration,
    custom_hours: s.custom_hours === null ? null : (JSON.parse(s.custom_hours) as Weekly),
    buffer_before: s.buffer_before,
    buffer_after: s.buffer_after,
  }));
  const locationsByAgent = groupBy(locations, (l) => ({ id: l.id, name: l.name }));
  return rows.map((row) => {
    const rendered: RenderedAgent = renderAgent(row, timezone);
    if (include.has('services')) rendered.services = servicesByAgent.get(row.id) ?? [];
    if (include.has('locations')) rendered.locations = locationsByAgent.get(row.id) ?? [];
    return rendered;
  });
}

function text(field: string, value: string | undefined, min: number, max: number, errors: FieldErrors): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length < min || trimmed.length > max) errors.add(field, min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters`);
  return trimmed;
}

/** Optional text that null (or an empty string) clears. */
function optionalText(field: string, value: string | null | undefined, max: number, errors: FieldErrors): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = text(field, value, 0, max, errors);
  return trimmed === '' ? null : trimmed;
}

/** Features as the canonical JSON string of [{label, value}], from an array or its JSON encoding. */
function checkFeatures(value: Feature[] | string | null | undefined, errors: FieldErrors): string | null | undefined {
  if (value === undefined || value === null) return value;
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      errors.add('features', 'must be an array of {label, value} or its JSON encoding');
      return undefined;
    }
  }
  const valid =
    Array.isArray(list) &&
    list.length <= MAX_FEATURES &&
    list.every((f) => typeof f === 'object' && f !== null && typeof (f as Feature).label === 'string' && typeof (f as Feature).value === 'string');
  if (!valid) {
    errors.add('features', `must be an array of at most ${MAX_FEATURES} {label, value} pairs of strings`);
    return undefined;
  }
  // The array form's schema bounds each label and value (in code points); text decoded here gets the same bounds.
  if ((list as Feature[]).some(({ label, value: text }) => [...label].length > FEATURE_LIMITS.label || [...text].length > FEATURE_LIMITS.value)) {
    errors.add('features', `labels must be at most ${FEATURE_LIMITS.label} characters and values at most ${FEATURE_LIMITS.value}`);
    return undefined;
  }
  return JSON.stringify((list as Feature[]).map(({ label, value: v }) => ({ label, value: v })));
}

/** The service links a request asks for, or undefined when it leaves the agent's services alone. */
function checkServiceLinks(input: AgentInput, errors: FieldErrors): repository.ServiceLink[] | undefined {
  if (input.service_ids === undefined && input.services === undefined) return undefined;
  const links = new Map<number, repository.ServiceLink>();
  for (const id of input.service_ids ?? []) links.set(id, { serviceId: id });
  const seen = new Set<number>();
  (input.services ?? []).forEach((entry, i) => {
    const path = `services.${i}`;
    if (seen.has(entry.service_id)) errors.add(`${path}.service_id`, `service ${entry.service_id} is listed twice`);
    seen.add(entry.service_id);
    let priceCents: number | null = null;
    if (entry.custom_price !== undefined && entry.custom_price !== null) {
      const cents = toCents(entry.custom_price);
      if (cents === undefined || cents < 0 || cents > MAX_CENTS) errors.add(`${path}.custom_price`, 'must be a decimal amount from 0 to 10000000');
      else priceCents = cents;
    }
    const duration = entry.custom_duration ?? null;
    if (duration !== null && (duration < 1 || duration > 1440)) errors.add(`${path}.custom_duration`, 'must be 1 to 1440 minutes');
    const hours = entry.custom_hours ? JSON.stringify(checkWeekly(entry.custom_hours, `${path}.custom_hours`, errors)) : null;
    const buffers = { bufferBefore: entry.buffer_before ?? null, bufferAfter: entry.buffer_after ?? null };
    for (const [field, minutes] of [['buffer_before', buffers.bufferBefore], ['buffer_after', buffers.bufferAfter]] as const) {
      if (minutes !== null && (minutes < 0 || minutes > MAX_BUFFER_MINUTES)) errors.add(`${path}.${field}`, `must be null (the service's) or 0 to ${MAX_BUFFER_MINUTES} minutes`);
    }
    links.set(entry.service_id, { serviceId: entry.service_id, custom: { priceCents, duration, hours, ...buffers } });
  });
  return [...links.values()];
}

async function checked(db: Db, input: AgentInput) {
  const errors = new FieldErrors();
  const email = text('email', input.email, 3, 254, errors);
  if (email !== undefined && !EMAIL.test(email)) errors.add('email', 'must be a valid email address');
  const phone = optionalText('phone', input.phone, 30, errors);
  if (phone && !PHONE.test(phone)) errors.add('phone', 'must be a phone number: digits, spaces, + ( ) - .');
  const changes = {
    first_name: text('first_name', input.first_name, 1, 100, errors),
    last_name: text('last_name', input.last_name, 1, 100, errors),
    email,
    phone,
    display_name: optionalText('display_name', input.display_name, 200, errors),
    bio: optionalText('bio', input.bio, 5000, errors),
    features: checkFeatures(input.features, errors),
    status: input.status,
  };
  const serviceLinks = checkServiceLinks(input, errors);
  errors.throwIfAny('The agent data is invalid');

  const locationIds = input.location_ids === undefined ? undefined : [...new Set(input.location_ids)];
  const unknownServices = new Set(await repository.missingServices(db, serviceLinks?.map((l) => l.serviceId) ?? []));
  const unknownLocations = await repository.missingLocations(db, locationIds ?? []);
  const details: Record<string, string> = {};
  const unknownIn = (ids: readonly number[] | undefined) => [...new Set(ids ?? [])].filter((id) => unknownServices.has(id));
  const unknownPlain = unknownIn(input.service_ids);
  const unknownCustom = unknownIn(input.services?.map((s) => s.service_id));
  if (unknownPlain.length > 0) details.service_ids = `no service with id ${unknownPlain.join(', ')}`;
  if (unknownCustom.length > 0) details.services = `no service with id ${unknownCustom.join(', ')}`;
  if (unknownLocations.length > 0) details.location_ids = `no location with id ${unknownLocations.join(', ')}`;
  if (Object.keys(details).length > 0) {
    throw new AppError('invalid_request', 'The request refers to services or locations that do not exist', details);
  }
  return { changes, serviceLinks, locationIds };
}

/** The includes that show what a write changed besides the agent's own fields. */
function includesFor(serviceLinks: unknown, locationIds: unknown): Set<AgentInclude> {
  const include = new Set<AgentInclude>();
  if (serviceLinks) include.add('services');
  if (locationIds) include.add('locations');
  return include;
}

export async function listAgents(
  db: Db,
  site: Site,
  filter: repository.AgentFilter,
  sort: { by: repository.AgentSort; direction: 'asc' | 'desc' },
  page: PageRequest,
  include: ReadonlySet<AgentInclude>,
): Promise<{ data: RenderedAgent[]; page: Page }> {
  const { rows, total } = await repository.listAgents(db, filter, sort, page);
  return { data: await present(db, site, rows, include), page: pageOf(page, total) };
}

export async function getAgent(db: Db, site: Site, id: number, include: ReadonlySet<AgentInclude>): Promise<RenderedAgent> {
  const row = await repository.findAgent(db, id);
  if (!row) throw notFound('agent_not_found', 'Agent', id);
  return (await present(db, site, [row], include))[0]!;
}

export async function createAgent(db: Db, site: Site, input: AgentInput & { first_name: string; last_name: string; email: string }): Promise<RenderedAgent> {
  const at = nowIso();
  const { row, serviceLinks, locationIds } = await referencingCatalog(db, async (trx) => {
    const { changes: c, serviceLinks, locationIds } = await checked(trx, input);
    const created = await repository.insertAgent(trx, {
      first_name: c.first_name ?? input.first_name,
      last_name: c.last_name ?? input.last_name,
      display_name: c.display_name ?? null,
      email: c.email ?? input.email,
      phone: c.phone ?? null,
      bio: c.bio ?? null,
      features: c.features ?? null,
      status: c.status ?? 'active',
      schedule: null,
      created_at: at,
      updated_at: at,
    });
    if (serviceLinks) await repository.setAgentServices(trx, created.id, serviceLinks);
    if (locationIds) await repository.setAgentLocations(trx, created.id, locationIds);
    return { row: created, serviceLinks, locationIds };
  });
  return (await present(db, site, [row], includesFor(serviceLinks, locationIds)))[0]!;
}

export async function updateAgent(db: Db, site: Site, id: number, input: AgentInput): Promise<RenderedAgent> {
  if (!(await repository.findAgent(db, id))) throw notFound('agent_not_found', 'Agent', id);
  const { row, serviceLinks, locationIds } = await referencingCatalog(db, async (trx) => {
    const { changes, serviceLinks, locationIds } = await checked(trx, input);
    const updated = await repository.updateAgent(trx, id, { ...changes, updated_at: nowIso() });
    if (!updated) throw notFound('agent_not_found', 'Agent', id);
    if (serviceLinks) await repository.setAgentServices(trx, id, serviceLinks);
    if (locationIds) await repository.setAgentLocations(trx, id, locationIds);
    return { row: updated, serviceLinks, locationIds };
  });
  return (await present(db, site, [row], includesFor(serviceLinks, locationIds)))[0]!;
}

/** Deletes the record, or retires it when past bookings keep it; 409 while upcoming bookings need it. */
export async function deleteAgent(db: Db, id: number): Promise<void> {
  if (!(await deleteUnlessBooked(db, repository.agentRemoval, id))) throw notFound('agent_not_found', 'Agent', id);
}

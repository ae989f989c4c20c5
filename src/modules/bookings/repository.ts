import { sql, type Expression, type Insertable, type RawBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { dialectOfDb, type Db, type Dialect } from '../../db/database.js';
import { prepareRowsQuery, prepareQuery, type RowFields } from '../../db/prepared.js';
import { containsText } from '../../http/list-query.js';
import { bumpBusyVersions } from '../availability/index.js';
import type { OrdersTable, TransactionsTable } from '../orders/index.js';
import type { BookingMetaTable, BookingsTable } from './table.js';
import { MAX_BULK_BOOKINGS } from '../../core/limits.js';

// Every write below raises the busy-time version of the agents whose bookings it changes, in the
// caller's transaction: instances cache busy times while the version stays (availability/busy-times.ts).

/** A booking to insert: every column but the id. */
export type NewBookingRow = Omit<Selectable<BookingsTable>, 'id'>;

const BOOKING_FIELDS: RowFields<NewBookingRow> = {
  booking_code: true,
  status: true,
  payment_status: true,
  service_id: true,
  agent_id: true,
  location_id: true,
  customer_id: true,
  order_id: true,
  start_date: true,
  start_time: true,
  end_date: true,
  end_time: true,
  timezone: true,
  start_at: true,
  end_at: true,
  duration: true,
  buffer_before: true,
  buffer_after: true,
  attendees: true,
  price_cents: true,
  notes: true,
  customer_comment: true,
  manage_link_version: true,
  scheduled_at: true,
  calendar_sequence: true,
  created_at: true,
  updated_at: true,
};

// Building an insert of this many values costs more than running it: it is compiled once per
// number of bookings a request writes.
const insertBookingRows = prepareRowsQuery(BOOKING_FIELDS, MAX_BULK_BOOKINGS, (db: Db, rows: NewBookingRow[]) =>
  db.insertInto('bookings').values(rows).returning(['id', 'booking_code']),
);

/** Inserts the bookings in one statement; their ids in the order of `rows`. */
export async function insertBookings(db: Db, rows: readonly NewBookingRow[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = await insertBookingRows.execute(db, rows);
  // The returned rows need not come in the order of the values; booking codes are unique.
  const idsByCode = new Map(inserted.map((row) => [row.booking_code, row.id]));
  const ids = rows.map((row) => idsByCode.get(row.booking_code) as number);
  await bumpBusyVersions(db, rows);
  return ids;
}

/** The metadata of new bookings, in one statement. */
export async function insertMeta(db: Db, rows: readonly Insertable<BookingMetaTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('booking_meta').values([...rows]).execute();
}

/** The columns of a booking its agent's busy-time row is raised by (bumpBusyVersions). */
export const BUSY_SPAN = ['agent_id', 'start_at', 'end_at', 'buffer_before', 'buffer_after'] as const;

export function findBooking(db: Db, id: number) {
  return db.selectFrom('bookings').selectAll().where('id', '=', id).executeTakeFirst();
}
export type BookingRow = NonNullable<Awaited<ReturnType<typeof findBooking>>>;

/**
 * Raises the SEQUENCE of the booking's calendar entry (a change its calendars must take over
 * their copy); the new value. Calendars, not busy times, read it: no version to raise.
 */
export async function raiseCalendarSequence(db: Db, id: number): Promise<number> {
  const { calendar_sequence } = await db
    .updateTable('bookings')
    .set((eb) => ({ calendar_sequence: eb('calendar_sequence', '+', 1) }))
    .where('id', '=', id)
    .returning('calendar_sequence')
    .executeTakeFirstOrThrow();
  return calendar_sequence;
}

export async function updateBookingRow(db: Db, id: number, values: Updateable<BookingsTable>): Promise<void> {
  const before = await db.selectFrom('bookings').select(BUSY_SPAN).where('id', '=', id).executeTakeFirst();
  if (!before) return;
  await db.updateTable('bookings').set(values).where('id', '=', id).execute();
  const after = {
    agent_id: values.agent_id ?? before.agent_id,
    start_at: values.start_at ?? before.start_at,
    end_at: values.end_at ?? before.end_at,
    buffer_before: values.buffer_before ?? before.buffer_before,
    buffer_after: values.buffer_after ?? before.buffer_after,
  };
  await bumpBusyVersions(db, [before, after]);
}

/** The booking and its order item go together; its order, invoices and payments stay on record. */
export async function deleteBookingRows(db: Db, id: number): Promise<void> {
  await db.deleteFrom('order_items').where('booking_id', '=', id).where('variant', '=', 'booking').execute();
  await db.deleteFrom('booking_meta').where('booking_id', '=', id).execute();
  const deleted = await db.deleteFrom('bookings').where('id', '=', id).returning(BUSY_SPAN).executeTakeFirst();
  if (deleted) await bumpBusyVersions(db, [deleted]);
}

/** Sets each key with a string value and removes each key set to null. */
export async function writeMeta(db: Db, bookingId: number, meta: Record<string, string | null>): Promise<void> {
  for (const [key, value] of Object.entries(meta)) {
    await db.deleteFrom('booking_meta').where('booking_id', '=', bookingId).where('meta_key', '=', key).execute();
    if (value !== null) await db.insertInto('booking_meta').values({ booking_id: bookingId, meta_key: key, meta_value: value }).execute();
  }
}

export async function metaKeyCount(db: Db, bookingId: number): Promise<number> {
  const { n } = await db
    .selectFrom('booking_meta')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('booking_id', '=', bookingId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function metaOf(db: Db, bookingIds: readonly number[]): Promise<Map<number, Record<string, string>>> {
  const meta = new Map<number, Record<string, string>>(bookingIds.map((id) => [id, {}]));
  if (bookingIds.length === 0) return meta;
  const rows = await db
    .selectFrom('booking_meta')
    .select(['booking_id', 'meta_key', 'meta_value'])
    .where('booking_id', 'in', [...bookingIds])
    .orderBy('meta_key')
    .execute();
  for (const row of rows) {
    const entry = meta.get(row.booking_id);
    if (entry) entry[row.meta_key] = row.meta_value;
  }
  return meta;
}

/** Bookings with the records every representation shows beside them. */
function withRelations(db: Db) {
  return db
    .selectFrom('bookings as b')
    .innerJoin('customers as c', 'c.id', 'b.customer_id')
    .innerJoin('agents as a', 'a.id', 'b.agent_id')
    .innerJoin('services as s', 's.id', 'b.service_id')
    .innerJoin('locations as l', 'l.id', 'b.location_id');
}

const RELATED_COLUMNS = [
  'b.id',
  'b.booking_code',
  'b.status',
  'b.payment_status',
  'b.service_id',
  'b.agent_id',
  'b.location_id',
  'b.customer_id',
  'b.order_id',
  'b.start_date',
  'b.start_time',
  'b.end_date',
  'b.end_time',
  'b.timezone',
  'b.start_at',
  'b.end_at',
  'b.duration',
  'b.attendees',
  'b.price_cents',
  'b.notes',
  'b.customer_comment',
  'b.manage_link_version',
  'b.created_at',
  'b.updated_at',
  'c.first_name as customer_first_name',
  'c.last_name as customer_last_name',
  'c.email as customer_email',
  'c.phone as customer_phone',
  'a.first_name as agent_first_name',
  'a.last_name as agent_last_name',
  'a.display_name as agent_display_name',
  'a.email as agent_email',
  'a.phone as agent_phone',
  's.name as service_name',
  's.duration as service_duration',
  's.price_min_cents as service_price_min_cents',
  's.charge_amount_cents as service_charge_amount_cents',
  'l.name as location_name',
  'l.full_address as location_address',
  'l.category_id as location_category_id',
] as const;

export type OrderRow = Pick<
  Selectable<OrdersTable>,
  | 'id'
  | 'confirmation_code'
  | 'customer_comment'
  | 'status'
  | 'fulfillment_status'
  | 'payment_status'
  | 'source_id'
  | 'source_url'
  | 'total_cents'
  | 'subtotal_cents'
  | 'created_at'
>;
export type TransactionRow = Pick<
  Selectable<TransactionsTable>,
  'id' | 'order_id' | 'booking_id' | 'amount_cents' | 'status' | 'processor' | 'payment_method' | 'payment_portion' | 'kind' | 'created_at'
>;
const TRANSACTION_FIELDS = [
  'id',
  'order_id',
  'booking_id',
  'amount_cents',
  'status',
  'processor',
  'payment_method',
  'payment_portion',
  'kind',
  'created_at',
] as const satisfies readonly (keyof TransactionRow)[];

/**
 * JSON aggregates, in order: SQLite and PostgreSQL name them differently, and PostgreSQL
 * aggregates no rows to null. SQLite answers JSON as text, PostgreSQL (through pg) parsed.
 */
function jsonArrayAgg<T>(dialect: Dialect, fields: readonly string[], table: string, orderBy: Expression<unknown>): RawBuilder<T[] | string> {
  const pairs = sql.join(fields.map((field) => sql`${sql.lit(field)}, ${sql.ref(`${table}.${field}`)}`));
  return dialect === 'postgres'
    ? sql`coalesce(json_agg(json_build_object(${pairs}) order by ${orderBy}), '[]')`
    : sql`json_group_array(json_object(${pairs}) order by ${orderBy})`;
}

function jsonObjectAgg(dialect: Dialect, key: Expression<string>, value: Expression<string>): RawBuilder<Record<string, string> | string> {
  return dialect === 'postgres'
    ? sql`coalesce(json_object_agg(${key}, ${value} order by ${key}), '{}')`
    : sql`json_group_object(${key}, ${value} order by ${key})`;
}

function fromJson<T extends object>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** A booking with every record its detail shows, lists included, in one statement. */
export function bookingDetailQuery(db: Db, id: number) {
  const dialect = dialectOfDb(db);
  return withRelations(db)
    .leftJoin('location_categories as lc', 'lc.id', 'l.category_id')
    .leftJoin('orders as o', 'o.id', 'b.order_id')
    .select(RELATED_COLUMNS)
    .select([
      'lc.name as location_category_name',
      'o.confirmation_code as order_confirmation_code',
      'o.customer_comment as order_customer_comment',
      'o.status as order_status',
      'o.fulfillment_status as order_fulfillment_status',
      'o.payment_status as order_payment_status',
      'o.source_id as order_source_id',
      'o.source_url as order_source_url',
      'o.total_cents as order_total_cents',
      'o.subtotal_cents as order_subtotal_cents',
      'o.created_at as order_created_at',
    ])
    .select((eb) => [
      eb
        .selectFrom('transactions as t')
        .select((t) => jsonArrayAgg<TransactionRow>(dialect, TRANSACTION_FIELDS, 't', t.ref('t.id')).as('rows'))
        // The payments of the booking's order, or recorded against the booking itself.
        .where((w) => w.or([w('t.booking_id', '=', w.ref('b.id')), w('t.order_id', '=', w.ref('b.order_id'))]))
        .as('transactions'),
      eb
        .selectFrom('booking_meta as m')
        .select((m) => jsonObjectAgg(dialect, m.ref('m.meta_key'), m.ref('m.meta_value')).as('entries'))
        .whereRef('m.booking_id', '=', 'b.id')
        .as('meta'),
    ])
    .where('b.id', '=', id);
}
const bookingDetail = prepareQuery(bookingDetailQuery);

export interface BookingDetailRecords {
  row: RelatedBookingRow;
  order: OrderRow | undefined;
  transactions: TransactionRow[];
  category: { id: number; name: string } | undefined;
  meta: Record<string, string>;
}

export async function findBookingDetail(db: Db, id: number): Promise<BookingDetailRecords | undefined> {
  const row = await bookingDetail.executeTakeFirst(db, id);
  if (!row) return undefined;
  // Columns of left-joined rows are null exactly when the row is missing: these are not null in their tables.
  const order: OrderRow | undefined =
    row.order_id === null || row.order_confirmation_code === null
      ? undefined
      : {
          id: row.order_id,
          confirmation_code: row.order_confirmation_code,
          customer_comment: row.order_customer_comment,
          status: row.order_status!,
          fulfillment_status: row.order_fulfillment_status!,
          payment_status: row.order_payment_status!,
          source_id: row.order_source_id,
          source_url: row.order_source_url,
          total_cents: row.order_total_cents!,
          subtotal_cents: row.order_subtotal_cents!,
          created_at: row.order_created_at!,
        };
  const category =
    row.location_category_id === null || row.location_category_name === null ? undefined : { id: row.location_category_id, name: row.location_category_name };
  return { row, order, transactions: fromJson(row.transactions ?? []), category, meta: fromJson(row.meta ?? {}) };
}

export interface ListFilters {
  statuses?: string[];
  customerId?: number;
  agentId?: number;
  serviceId?: number;
  locationId?: number;
  dateFrom?: string;
  dateTo?: string;
  /** UTC instants (ISO) bounding created_at: [from, to). */
  createdFrom?: string;
  createdBefore?: string;
  /** UTC instants (ISO) bounding updated_at, both exclusive. */
  updatedAfter?: string;
  updatedBefore?: string;
  bookingCode?: string;
  paymentStatus?: string;
  durationMin?: number;
  durationMax?: number;
  priceMinCents?: number;
  priceMaxCents?: number;
  customerEmail?: string;
  customerPhone?: string;
  meta?: { key: string; value: string };
  search?: string;
}

export type ListSort = 'start_date' | 'created_at' | 'updated_at' | 'customer_name' | 'status' | 'id';

/** The customers whose text matches, for filters on the booking's customer. */
function customersWhere(db: Db, match: (c: { email: Expression<string | null>; phone: Expression<string | null>; fullName: Expression<string> }) => Expression<SqlBool>) {
  return db
    .selectFrom('customers as c')
    .select('c.id')
    .where((eb) => match({ email: eb.ref('c.email'), phone: eb.ref('c.phone'), fullName: sql<string>`${eb.ref('c.first_name')} || ' ' || ${eb.ref('c.last_name')}` }));
}

/**
 * The bookings the filters select, from the bookings table alone: the customer's fields are
 * matched through a subquery, and the other related records, which every booking has (not-null
 * foreign keys), are joined only for the page that is shown.
 */
function filtered(db: Db, f: ListFilters) {
  return db.selectFrom('bookings as b').where((eb) => {
    const conditions: Expression<SqlBool>[] = [];
    if (f.statuses) conditions.push(eb('b.status', 'in', f.statuses as BookingsTable['status'][]));
    if (f.customerId !== undefined) conditions.push(eb('b.customer_id', '=', f.customerId));
    if (f.agentId !== undefined) conditions.push(eb('b.agent_id', '=', f.agentId));
    if (f.serviceId !== undefined) conditions.push(eb('b.service_id', '=', f.serviceId));
    if (f.locationId !== undefined) conditions.push(eb('b.location_id', '=', f.locationId));
    if (f.dateFrom !== undefined) conditions.push(eb('b.start_date', '>=', f.dateFrom));
    if (f.dateTo !== undefined) conditions.push(eb('b.start_date', '<=', f.dateTo));
    if (f.createdFrom !== undefined) conditions.push(eb('b.created_at', '>=', f.createdFrom));
    if (f.createdBefore !== undefined) conditions.push(eb('b.created_at', '<', f.createdBefore));
    if (f.updatedAfter !== undefined) conditions.push(eb('b.updated_at', '>', f.updatedAfter));
    if (f.updatedBefore !== undefined) conditions.push(eb('b.updated_at', '<', f.updatedBefore));
    if (f.bookingCode !== undefined) conditions.push(containsText(eb.ref('b.booking_code'), f.bookingCode));
    if (f.paymentStatus !== undefined) conditions.push(eb('b.payment_status', '=', f.paymentStatus as BookingsTable['payment_status']));
    if (f.durationMin !== undefined) conditions.push(eb('b.duration', '>=', f.durationMin));
    if (f.durationMax !== undefined) conditions.push(eb('b.duration', '<=', f.durationMax));
    if (f.priceMinCents !== undefined) conditions.push(eb('b.price_cents', '>=', f.priceMinCents));
    if (f.priceMaxCents !== undefined) conditions.push(eb('b.price_cents', '<=', f.priceMaxCents));
    const { customerEmail, customerPhone } = f;
    if (customerEmail !== undefined) conditions.push(eb('b.customer_id', 'in', customersWhere(db, (c) => containsText(c.email, customerEmail))));
    if (customerPhone !== undefined) conditions.push(eb('b.customer_id', 'in', customersWhere(db, (c) => containsText(c.phone, customerPhone))));
    if (f.meta) {
      const { key, value } = f.meta;
      conditions.push(
        eb.exists(
          eb
            .selectFrom('booking_meta as m')
            .select('m.booking_id')
            .whereRef('m.booking_id', '=', 'b.id')
            .where('m.meta_key', '=', key)
            .where((inner) => containsText(inner.ref('m.meta_value'), value)),
        ),
      );
    }
    const { search } = f;
    if (search !== undefined) {
      conditions.push(
        eb.or([
          eb('b.customer_id', 'in', customersWhere(db, (c) => eb.or([containsText(c.fullName, search), containsText(c.email, search)]))),
          containsText(eb.ref('b.booking_code'), search),
        ]),
      );
    }
    return eb.and(conditions);
  });
}

export async function countBookings(db: Db, filters: ListFilters): Promise<number> {
  const row = await filtered(db, filters)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

type SortKey = Expression<unknown>;

/** The sort keys of a list order, id last so that pages never overlap. */
function sortKeys(sort: ListSort, ref: (column: 'start_date' | 'start_time' | 'created_at' | 'updated_at' | 'status' | 'id') => SortKey, customerName: () => SortKey[]): SortKey[] {
  switch (sort) {
    case 'start_date':
      // The local date and time, as the list shows them.
      return [ref('start_date'), ref('start_time'), ref('id')];
    case 'created_at':
      return [ref('created_at'), ref('id')];
    case 'updated_at':
      return [ref('updated_at'), ref('id')];
    case 'customer_name':
      return [...customerName(), ref('id')];
    case 'status':
      return [ref('status'), ref('id')];
    case 'id':
      return [ref('id')];
  }
}

/**
 * One page: its booking ids are chosen from the bookings alone (an index walk for the common
 * filters and sorts, however deep the page), then only those rows are joined to their records.
 */
export function listBookings(db: Db, filters: ListFilters, sort: ListSort, direction: 'asc' | 'desc', limit: number, offset: number) {
  let query = withRelations(db).select(RELATED_COLUMNS).where('b.id', 'in', pageIdsQuery(db, filters, sort, direction, limit, offset));
  for (const key of sortKeys(sort, (column) => sql.ref(`b.${column}`), () => [sql`lower(c.first_name)`, sql`lower(c.last_name)`])) {
    query = query.orderBy(key, direction);
  }
  return query.execute();
}
export type RelatedBookingRow = Awaited<ReturnType<typeof listBookings>>[number];

/** The ids of one page of the list, in its order. */
export function pageIdsQuery(db: Db, filters: ListFilters, sort: ListSort, direction: 'asc' | 'desc', limit: number, offset: number) {
  let page = filtered(db, filters).select('b.id');
  const customerName = (column: 'first_name' | 'last_name') =>
    sql`(select lower(${sql.ref(`pc.${column}`)}) from customers as pc where pc.id = b.customer_id)`;
  for (const key of sortKeys(sort, (column) => sql.ref(`b.${column}`), () => [customerName('first_name'), customerName('last_name')])) {
    page = page.orderBy(key, direction);
  }
  return page.limit(limit).offset(offset);
}

/** A bookings column that names a catalog record. */
export type CatalogRef = 'agent_id' | 'service_id' | 'location_id';

/** How many bookings that are not cancelled name the record and end after `at`. */
export async function upcomingBookingCount(db: Db, column: CatalogRef, id: number, at: string): Promise<number> {
  const { upcoming } = await db
    .selectFrom('bookings')
    .select((eb) => eb.fn.countAll<number>().as('upcoming'))
    .where(column, '=', id)
    .where('status', '!=', 'cancelled')
    .where('end_at', '>', at)
    .executeTakeFirstOrThrow();
  return Number(upcoming);
}

/** Whether any booking, of any time and status, names the record. */
export async function anyBookingNames(db: Db, column: CatalogRef, id: number): Promise<boolean> {
  const referenced = await db.selectFrom('bookings').select('id').where(column, '=', id).limit(1).executeTakeFirst();
  return referenced !== undefined;
}

/** The booking with the code, with the version its manage links are made from. */
export function bookingAccessByCode(db: Db, code: string): Promise<{ id: number; manage_link_version: number } | undefined> {
  return db.selectFrom('bookings').select(['id', 'manage_link_version']).where('booking_code', '=', code).executeTakeFirst();
}

/** What a calendar entry shows of a booking: its span and the names and contacts of its records. */
function calendarBookings(db: Db) {
  return withRelations(db).select([
    'b.id',
    'b.booking_code',
    'b.status',
    'b.start_at',
    'b.end_at',
    'b.attendees',
    'b.notes',
    'b.customer_comment',
    'b.calendar_sequence',
    'c.first_name as customer_first_name',
    'c.last_name as customer_last_name',
    'c.email as customer_email',
    'c.phone as customer_phone',
    'a.first_name as agent_first_name',
    'a.last_name as agent_last_name',
    'a.display_name as agent_display_name',
    's.name as service_name',
    'l.name as location_name',
    'l.full_address as location_address',
  ]);
}

/** The agent's pending and approved bookings starting in [fromIso, toIso), by start, at most `limit`. */
export function agentCalendarBookings(db: Db, agentId: number, fromIso: string, toIso: string, limit: number) {
  return calendarBookings(db)
    .where('b.agent_id', '=', agentId)
    .where('b.status', 'in', ['pending', 'approved'])
    .where('b.start_at', '>=', fromIso)
    .where('b.start_at', '<', toIso)
    .orderBy('b.start_at')
    .orderBy('b.id')
    .limit(limit)
    .execute();
}
export type CalendarBookingRow = Awaited<ReturnType<typeof agentCalendarBookings>>[number];

/** One booking as a calendar entry shows it, whatever its status. */
export function calendarBooking(db: Db, id: number): Promise<CalendarBookingRow | undefined> {
  return calendarBookings(db).where('b.id', '=', id).executeTakeFirst();
}

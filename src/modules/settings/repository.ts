import { sql } from 'kysely';
import { AppError } from '../../core/errors.js';
import type { Db } from '../../db/database.js';
import { localDateTime } from '../../lib/time.js';
import { prepareQuery } from '../../db/prepared.js';

/** Bookings re-expressed per statement by reexpressBookings. */
const REEXPRESS_BATCH = 1000;

/**
 * Writes the local date and time columns of every booking not yet expressed in `timezone`, and
 * its order item's, as that zone shows its instants, which stay as they are: the site's zone
 * changed, and bookings are shown, filtered and sorted by their local text. The caller holds the
 * catalog lock exclusively, so that no booking is written in the old zone meanwhile, and rolls
 * everything back when a booking cannot be expressed (a local year past 9999).
 */
export async function reexpressBookings(db: Db, timezone: string): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('bookings')
      .select(['id', 'start_at', 'end_at'])
      .where('id', '>', after)
      .where('timezone', '!=', timezone)
      .orderBy('id')
      .limit(REEXPRESS_BATCH)
      .execute();
    if (rows.length === 0) return;
    const local = new Map(
      rows.map(({ id, start_at, end_at }) => {
        const [start, end] = [localDateTime(start_at, timezone), localDateTime(end_at, timezone)];
        // "YYYY-MM-DD HH:MM:SS": a longer text is a year past 9999, which no column can hold.
        if (start.length !== 19 || end.length !== 19) {
          throw new AppError('validation_failed', `Booking ${id} would end after the year 9999 in ${timezone}`, {
            timezone: `booking ${id} would end after the year 9999 in this zone`,
          });
        }
        return [id, { startDate: start.slice(0, 10), startTime: start.slice(11, 16), endDate: end.slice(0, 10), endTime: end.slice(11, 16) }];
      }),
    );
    const values = [...local].map(([id, l]) => sql`(${id}, ${l.startDate}, ${l.startTime}, ${l.endDate}, ${l.endTime})`);
    // VALUES names its columns column1… on both engines; parameters arrive as text.
    await sql`update bookings set start_date = v.column2, start_time = v.column3, end_date = v.column4, end_time = v.column5, timezone = ${timezone}
      from (values ${sql.join(values)}) as v where bookings.id = cast(v.column1 as integer)`.execute(db);
    const items = await db
      .selectFrom('order_items')
      .select(['id', 'booking_id', 'item_data'])
      .where('variant', '=', 'booking')
      .where('booking_id', 'in', [...local.keys()])
      .execute();
    if (items.length > 0) {
      const data = items.map(({ id, booking_id, item_data }) => {
        const l = local.get(booking_id as number) as { startDate: string; startTime: string };
        return sql`(${id}, ${JSON.stringify({ ...(JSON.parse(item_data) as object), start_date: l.startDate, start_time: l.startTime })})`;
      });
      await sql`update order_items set item_data = v.column2 from (values ${sql.join(data)}) as v where order_items.id = cast(v.column1 as integer)`.execute(db);
    }
    after = (rows[rows.length - 1] as { id: number }).id;
  }
}

/** One setting's stored value, or undefined when it has none. */
export async function readSetting(db: Db, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores one setting's value, replacing any. */
export async function upsertSetting(db: Db, key: string, value: string, at: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: at }))
    .execute();
}

/** Stores the values as they are, replacing any, in one statement. */
export async function upsertSettings(db: Db, rows: readonly { key: string; value: string; updated_at: string }[]): Promise<void> {
  await db
    .insertInto('settings')
    .values(rows)
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_at: eb.ref('excluded.updated_at') })),
    )
    .execute();
}

/** Stores the values of keys that have none; stored values stay as they are. */
export async function insertMissingSettings(db: Db, rows: readonly { key: string; value: string; updated_at: string }[]): Promise<void> {
  await db
    .insertInto('settings')
    .values(rows)
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

// Every booking write reads them.
const allSettings = prepareQuery((db: Db) => db.selectFrom('settings').select(['key', 'value']));

/** Every stored setting, by key (the site schedule and the admin password's hash too). */
export async function storedSettings(db: Db): Promise<Map<string, string>> {
  const rows = await allSettings.execute(db);
  return new Map(rows.map((r) => [r.key, r.value]));
}

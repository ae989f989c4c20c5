import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.js';
import * as foundation from './migrations/0001_foundation.js';
import * as domain from './migrations/0002_domain.js';
import * as catalog from './migrations/0003_catalog.js';
import * as customerIndexes from './migrations/0004_customer_indexes.js';
import * as ordersIndexes from './migrations/0006_orders_indexes.js';
import * as adminSessions from './migrations/0007_admin_sessions.js';
import * as idempotency from './migrations/0008_idempotency.js';
import * as bookingListIndexes from './migrations/0009_booking_list_indexes.js';
import * as bookingsBusyIndex from './migrations/0010_bookings_busy_index.js';
import * as customerListOrder from './migrations/0011_customer_list_order.js';
import * as transactionsBookingIndex from './migrations/0012_transactions_booking_index.js';
import * as agentBusyVersions from './migrations/0013_agent_busy_versions.js';
import * as agentLongestBooking from './migrations/0014_agent_longest_booking.js';
import * as orderCouponId from './migrations/0015_order_coupon_id.js';
import * as schedulingRules from './migrations/0016_scheduling_rules.js';
import * as money from './migrations/0018_money.js';
import * as agentWidestBuffer from './migrations/0019_agent_widest_buffer.js';
import * as invoiceStatusBeforeClose from './migrations/0020_invoice_status_before_close.js';
import * as updatedAtIndexes from './migrations/0021_updated_at_indexes.js';
import * as manageLinkVersion from './migrations/0022_manage_link_version.js';
import * as events from './migrations/0023_events.js';
import * as webhooks from './migrations/0024_webhooks.js';
import * as remindersAndCalendars from './migrations/0025_reminders_and_calendars.js';

type DialectMigration = { up(db: Parameters<Migration['up']>[0], dialect: Dialect): Promise<void> };

/** Ordered by name; a migration, once released, never changes. */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_foundation': foundation,
  '0002_domain': domain,
  '0003_catalog': catalog,
  '0004_customer_indexes': customerIndexes,
  '0006_orders_indexes': ordersIndexes,
  '0007_admin_sessions': adminSessions,
  '0008_idempotency': idempotency,
  '0009_booking_list_indexes': bookingListIndexes,
  '0010_bookings_busy_index': bookingsBusyIndex,
  '0011_customer_list_order': customerListOrder,
  '0012_transactions_booking_index': transactionsBookingIndex,
  '0013_agent_busy_versions': agentBusyVersions,
  '0014_agent_longest_booking': agentLongestBooking,
  '0015_order_coupon_id': orderCouponId,
  '0016_scheduling_rules': schedulingRules,
  '0018_money': money,
  '0019_agent_widest_buffer': agentWidestBuffer,
  '0020_invoice_status_before_close': invoiceStatusBeforeClose,
  '0021_updated_at_indexes': updatedAtIndexes,
  '0022_manage_link_version': manageLinkVersion,
  '0023_events': events,
  '0024_webhooks': webhooks,
  '0025_reminders_and_calendars': remindersAndCalendars,
};

class InCodeProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  getMigrations(): Promise<Record<string, Migration>> {
    const entries = Object.entries(MIGRATIONS).map(([name, m]): [string, Migration] => [
      name,
      { up: (db) => m.up(db, this.dialect) },
    ]);
    return Promise.resolve(Object.fromEntries(entries));
  }
}

export class MigrationError extends Error {}

/**
 * Applies pending migrations, bounded as migrations (DB_MIGRATION_TIMEOUT_MS); Kysely's migrator
 * locks, so concurrent starts apply each once.
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({ db: handle.migrationDb, provider: new InCodeProvider(handle.dialect) });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // No migration ran: the database itself failed (unreachable, no permission); say that, as is.
    if (failed === undefined) throw error instanceof Error ? error : new MigrationError(JSON.stringify(error));
    throw new MigrationError(`migration ${failed} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

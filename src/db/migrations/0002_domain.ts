import type { Kysely } from 'kysely';
import { idColumn } from '../columns.js';
import type { Dialect } from '../database.js';

// The domain model every module builds on. Conventions (see 0001): instants are ISO 8601 UTC
// text, booleans integers 0/1, money integer cents in *_cents columns, JSON documents as text.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumn(dialect);

  for (const table of ['service_categories', 'location_categories']) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'integer', id)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  }

  await db.schema
    .createTable('agents')
    .addColumn('id', 'integer', id)
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('bio', 'text')
    // JSON-encoded array of {label, value}, returned as that string (spec, Agent).
    .addColumn('features', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON {weekly, exceptions}; null means the agent works the site's hours.
    .addColumn('schedule', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agents_email').on('agents').column('email').execute();
  await db.schema.createIndex('agents_first_name').on('agents').column('first_name').execute();

  await db.schema
    .createTable('services')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('short_description', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('price_min_cents', 'integer', (c) => c.notNull())
    .addColumn('price_max_cents', 'integer', (c) => c.notNull())
    .addColumn('charge_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('deposit_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('capacity_min', 'integer', (c) => c.notNull())
    .addColumn('capacity_max', 'integer', (c) => c.notNull())
    .addColumn('order_number', 'integer', (c) => c.notNull())
    .addColumn('selection_image_id', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('category_id', 'integer', (c) => c.references('service_categories.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('locations')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('full_address', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('category_id', 'integer', (c) => c.references('location_categories.id'))
    .addColumn('order_number', 'integer', (c) => c.notNull())
    .addColumn('selection_image_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('agent_services')
    .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('service_id', 'integer', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('custom_price_cents', 'integer')
    .addColumn('custom_duration', 'integer')
    // JSON weekly object: the agent offers the service only inside these hours.
    .addColumn('custom_hours', 'text')
    .addPrimaryKeyConstraint('agent_services_pk', ['agent_id', 'service_id'])
    .execute();
  await db.schema.createIndex('agent_services_service').on('agent_services').column('service_id').execute();

  await db.schema
    .createTable('agent_locations')
    .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('location_id', 'integer', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('agent_locations_pk', ['agent_id', 'location_id'])
    .execute();
  await db.schema.createIndex('agent_locations_location').on('agent_locations').column('location_id').execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'integer', id)
    .addColumn('customer_code', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    // Lower-cased email: uniqueness is case-insensitive, and several customers may have none.
    .addColumn('email_lower', 'text', (c) => c.unique())
    .addColumn('phone', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('date_of_birth', 'text')
    .addColumn('gender', 'text')
    .addColumn('address', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('zipcode', 'text')
    .addColumn('country', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('is_guest', 'integer', (c) => c.notNull())
    .addColumn('host_user_id', 'integer')
    .addColumn('avatar_image_id', 'integer')
    .addColumn('preferred_agent_id', 'integer', (c) => c.references('agents.id'))
    .addColumn('preferred_location_id', 'integer', (c) => c.references('locations.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customers_created_at').on('customers').column('created_at').execute();
  await db.schema.createIndex('customers_status').on('customers').column('status').execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'integer', id)
    .addColumn('confirmation_code', 'text', (c) => c.notNull().unique())
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payment_status', 'text', (c) => c.notNull())
    .addColumn('fulfillment_status', 'text', (c) => c.notNull())
    .addColumn('subtotal_cents', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('tax_total_cents', 'integer', (c) => c.notNull())
    .addColumn('discount_total_cents', 'integer', (c) => c.notNull())
    .addColumn('coupon_code', 'text')
    .addColumn('coupon_discount_cents', 'integer', (c) => c.notNull())
    .addColumn('customer_comment', 'text')
    .addColumn('notes', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('source_id', 'text')
    .addColumn('source_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('orders_customer').on('orders').column('customer_id').execute();
  await db.schema.createIndex('orders_coupon_code').on('orders').column('coupon_code').execute();

  await db.schema
    .createTable('bookings')
    .addColumn('id', 'integer', id)
    .addColumn('booking_code', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payment_status', 'text', (c) => c.notNull())
    .addColumn('service_id', 'integer', (c) => c.notNull().references('services.id'))
    .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id'))
    .addColumn('location_id', 'integer', (c) => c.notNull().references('locations.id'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('order_id', 'integer', (c) => c.references('orders.id'))
    // Local wall-clock fields in the booking's timezone, as the API shows them.
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    // The same span as UTC instants: what overlap checks compare.
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('end_at', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('customer_comment', 'text')
    // Secret of the manage-booking URLs.
    .addColumn('access_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bookings_agent_start').on('bookings').columns(['agent_id', 'start_at']).execute();
  await db.schema.createIndex('bookings_customer').on('bookings').columns(['customer_id', 'start_at']).execute();
  await db.schema.createIndex('bookings_start_date').on('bookings').columns(['start_date', 'start_time']).execute();
  await db.schema.createIndex('bookings_created_at').on('bookings').column('created_at').execute();
  await db.schema.createIndex('bookings_service').on('bookings').column('service_id').execute();
  await db.schema.createIndex('bookings_location').on('bookings').column('location_id').execute();
  await db.schema.createIndex('bookings_order').on('bookings').column('order_id').execute();

  await db.schema
    .createTable('booking_meta')
    .addColumn('booking_id', 'integer', (c) => c.notNull().references('bookings.id').onDelete('cascade'))
    .addColumn('meta_key', 'text', (c) => c.notNull())
    .addColumn('meta_value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('booking_meta_pk', ['booking_id', 'meta_key'])
    .execute();
  await db.schema.createIndex('booking_meta_key').on('booking_meta').columns(['meta_key', 'booking_id']).execute();

  await db.schema
    .createTable('order_items')
    .addColumn('id', 'integer', id)
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('booking_id', 'integer', (c) => c.references('bookings.id').onDelete('set null'))
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('item_data', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('subtotal_cents', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_items_order').on('order_items').column('order_id').execute();
  await db.schema.createIndex('order_items_booking').on('order_items').column('booking_id').execute();

  await db.schema
    .createTable('invoices')
    .addColumn('id', 'integer', id)
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('invoice_number', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('charge_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('payment_portion', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invoices_order').on('invoices').column('order_id').execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'integer', id)
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id'))
    .addColumn('booking_id', 'integer', (c) => c.references('bookings.id').onDelete('set null'))
    .addColumn('invoice_id', 'integer', (c) => c.references('invoices.id').onDelete('set null'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('payment_portion', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('token', 'text')
    .addColumn('notes', 'text')
    .addColumn('receipt_number', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('transactions_order').on('transactions').columns(['order_id', 'status']).execute();
  await db.schema.createIndex('transactions_customer').on('transactions').column('customer_id').execute();

  await db.schema
    .createTable('coupons')
    .addColumn('id', 'integer', id)
    .addColumn('code', 'text', (c) => c.notNull())
    // Codes are unique case-insensitively.
    .addColumn('code_lower', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('discount_type', 'text', (c) => c.notNull())
    // Percent or amount, in hundredths (12.5 % → 1250; 5.00 → 500): exact to two decimals.
    .addColumn('discount_value_hundredths', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('active_from', 'text')
    .addColumn('active_to', 'text')
    .addColumn('usage_limit', 'integer', (c) => c.notNull())
    .addColumn('min_order_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('max_discount_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'integer', id)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    // JSON: what the mail templates render (names, times, links).
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();
}

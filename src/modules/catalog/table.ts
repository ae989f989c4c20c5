import type { Generated } from 'kysely';

export interface ServicesTable {
  id: Generated<number>;
  name: string;
  short_description: string;
  description: string;
  duration: number;
  price_min_cents: number;
  price_max_cents: number;
  charge_amount_cents: number;
  deposit_amount_cents: number;
  capacity_min: number;
  capacity_max: number;
  /** Minutes kept free before and after each booking (an agent's connection may override them). */
  buffer_before: Generated<number>;
  buffer_after: Generated<number>;
  /** The booking window: least notice (null: the site's min_lead_minutes), days ahead (null: the site's max_advance_days). */
  min_notice_minutes: number | null;
  max_advance_days: number | null;
  order_number: number;
  selection_image_id: number;
  status: 'active' | 'disabled';
  visibility: 'visible' | 'hidden';
  category_id: number | null;
  created_at: string;
  updated_at: string;
  /** Set when deleted while bookings still refer to the row: it stays as their history, absent from the API. */
  deleted_at: string | null;
}

export interface CategoriesTable {
  id: Generated<number>;
  name: string;
  created_at: string;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    service_categories: CategoriesTable;
    location_categories: CategoriesTable;
    services: ServicesTable;
  }
}

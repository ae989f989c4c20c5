import type { Generated } from 'kysely';

export interface LocationsTable {
  id: Generated<number>;
  name: string;
  full_address: string;
  status: 'active' | 'inactive';
  category_id: number | null;
  order_number: number;
  selection_image_id: number;
  created_at: string;
  updated_at: string;
  /** Set when deleted while bookings still refer to the row: it stays as their history, absent from the API. */
  deleted_at: string | null;
}

declare module '../../db/database.js' {
  interface Database {
    locations: LocationsTable;
  }
}

import type { Generated } from 'kysely';

export interface CustomersTable {
  id: Generated<number>;
  customer_code: string;
  first_name: string;
  last_name: string;
  email: string | null;
  /** email lower-cased: the unique key (case-insensitive), null when there is no email. */
  email_lower: string | null;
  phone: string | null;
  status: string;
  date_of_birth: string | null;
  gender: string | null;
  address: string | null;
  city: string | null;
  state: string | null;
  zipcode: string | null;
  country: string | null;
  /** JSON object of string keys to values. */
  custom_fields: string;
  notes: string | null;
  is_guest: number;
  host_user_id: number | null;
  avatar_image_id: number | null;
  preferred_agent_id: number | null;
  preferred_location_id: number | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    customers: CustomersTable;
  }
}

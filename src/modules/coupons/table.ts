import type { Generated } from 'kysely';

export interface CouponsTable {
  id: Generated<number>;
  code: string;
  /** code lower-cased: the unique key (codes are unique case-insensitively). */
  code_lower: string;
  name: string;
  description: string;
  discount_type: 'percent' | 'fixed_amount';
  /** Percent or amount in hundredths (12.5 % → 1250, 5.00 → 500). */
  discount_value_hundredths: number;
  status: 'active' | 'inactive';
  active_from: string | null;
  active_to: string | null;
  /** 0 means unlimited. */
  usage_limit: number;
  min_order_amount_cents: number;
  max_discount_amount_cents: number;
  created_at: string;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    coupons: CouponsTable;
  }
}

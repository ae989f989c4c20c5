/** What an API key may do (contract §4), and the key as the rest of the service sees a caller. */

/** Contract §4. `*` grants all of them. */
export const PERMISSIONS = [
  'bookings:read',
  'bookings:create',
  'bookings:update',
  'bookings:delete',
  'bookings:manage_completed',
  'customers:read',
  'customers:create',
  'customers:update',
  'customers:delete',
  'agents:read',
  'agents:write',
  'services:read',
  'services:write',
  'locations:read',
  'locations:write',
  'availability:read',
  'orders:read',
  'orders:write',
  'coupons:read',
  'coupons:write',
  'payments:read',
  'payments:write',
  'settings:read',
  'settings:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];
export type PermissionGrant = Permission | '*';

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

export function grants(granted: readonly PermissionGrant[], needed: Permission): boolean {
  return granted.includes('*') || granted.includes(needed);
}

export type KeyType = 'test' | 'live';

/** An API key as stored, less its hash: what a request's caller is. */
export interface ApiKey {
  id: number;
  name: string;
  type: KeyType;
  prefix: string;
  permissions: PermissionGrant[];
  status: 'active' | 'inactive';
  per_minute: number;
  per_hour: number;
  created_at: string;
  last_used_at: string | null;
}

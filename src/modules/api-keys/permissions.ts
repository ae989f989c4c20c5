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
] as const;

export type Permission = (typeof PERMISSIONS)[number];
export type PermissionGrant = Permission | '*';

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}

export function grants(granted: readonly PermissionGrant[], needed: Permission): boolean {
  return granted.includes('*') || granted.includes(needed);
}

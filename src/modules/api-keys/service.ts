import { hash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { AppError } from '../../core/errors.js';
import { nowIso } from '../../lib/time.js';
import { isPermission, type ApiKey, type KeyType, type PermissionGrant } from '../../core/access.js';
import * as repository from './repository.js';

/** Spec, Limits: test keys are more permissive per minute, live keys per hour. */
export const DEFAULT_LIMITS: Record<KeyType, { perMinute: number; perHour: number }> = {
  test: { perMinute: 100, perHour: 1000 },
  live: { perMinute: 60, perHour: 3600 },
};

export interface NewKeyInput {
  name: string;
  type?: KeyType;
  permissions?: readonly string[];
  perMinute?: number;
  perHour?: number;
}

/** Every authenticated request hashes its key: the one-shot hash skips creating a Hash object. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function parsePermissions(names: readonly string[]): PermissionGrant[] {
  const unknown = names.filter((n) => n !== '*' && !isPermission(n));
  if (unknown.length > 0) {
    throw new AppError('validation_failed', `unknown permission: ${unknown.join(', ')}`, {
      permissions: `unknown: ${unknown.join(', ')}`,
    });
  }
  if (names.length === 0) throw new AppError('validation_failed', 'a key needs at least one permission', { permissions: 'empty' });
  return names.includes('*') ? ['*'] : [...new Set(names as PermissionGrant[])];
}

function positiveLimit(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
    throw new AppError('validation_failed', `${field} must be an integer from 1 to 1000000`, { [field]: 'out of range' });
  }
  return value;
}

/** Creates a key and returns it with its value: the only time the value is ever available. */
export async function createKey(db: Db, input: NewKeyInput): Promise<ApiKey & { key: string }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) {
    throw new AppError('validation_failed', 'name must be 1 to 100 characters', { name: 'must be 1 to 100 characters' });
  }
  const type = input.type ?? 'test';
  const permissions = parsePermissions(input.permissions ?? ['*']);
  const key = `bk_${type}_${randomBytes(24).toString('base64url')}`;
  const row = {
    name,
    type,
    prefix: key.slice(0, 12),
    key_hash: hashKey(key),
    permissions: JSON.stringify(permissions),
    status: 'active' as const,
    per_minute: positiveLimit('per_minute', input.perMinute, DEFAULT_LIMITS[type].perMinute),
    per_hour: positiveLimit('per_hour', input.perHour, DEFAULT_LIMITS[type].perHour),
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
  };
  const id = await repository.insertKey(db, row);
  return { ...toApiKey({ ...row, id }), key };
}

export function toApiKey(row: repository.ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    prefix: row.prefix,
    permissions: JSON.parse(row.permissions) as PermissionGrant[],
    status: row.status,
    per_minute: row.per_minute,
    per_hour: row.per_hour,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
  };
}

export async function listKeys(db: Db): Promise<ApiKey[]> {
  return (await repository.listKeys(db)).map(toApiKey);
}

/** Revoking is final: the key answers 401 from the next request on. */
export async function revokeKey(db: Db, id: number): Promise<ApiKey> {
  const row = await repository.revokeKey(db, id, nowIso());
  if (!row) throw new AppError('not_found', `API key ${id} was not found`);
  return toApiKey(row);
}

/** The active key with this value, or undefined. */
export async function findActiveKey(db: Db, key: string): Promise<ApiKey | undefined> {
  const row = await repository.findByHash(db, hashKey(key));
  return row && row.status === 'active' ? toApiKey(row) : undefined;
}

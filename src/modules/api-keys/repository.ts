import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepareQuery } from '../../db/prepared.js';
import type { ApiKeysTable } from './table.js';

export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'key_hash' | 'revoked_at'>;

const PUBLIC_COLUMNS = [
  'id',
  'name',
  'type',
  'prefix',
  'permissions',
  'status',
  'per_minute',
  'per_hour',
  'created_at',
  'last_used_at',
] as const;

export async function insertKey(db: Db, row: Insertable<ApiKeysTable>): Promise<number> {
  const { id } = await db.insertInto('api_keys').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export function listKeys(db: Db): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').select(PUBLIC_COLUMNS).orderBy('id').execute();
}

// Every authenticated request looks its key up.
const keyByHash = prepareQuery((db: Db, keyHash: string) => db.selectFrom('api_keys').select(PUBLIC_COLUMNS).where('key_hash', '=', keyHash));

export function findByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  return keyByHash.executeTakeFirst(db, keyHash);
}

export function revokeKey(db: Db, id: number, at: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ status: 'inactive', revoked_at: at })
    .where('id', '=', id)
    .returning(PUBLIC_COLUMNS)
    .executeTakeFirst();
}

/** Batched from the audit recorder: one statement per key, never moving last_used_at backwards. */
export async function touchKeys(db: Db, lastUsed: ReadonlyMap<number, string>): Promise<void> {
  for (const [id, at] of lastUsed) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, isStrongSecret, type ManageLinkSecretSource } from '../../config.js';

/** Bytes of a secret the service makes itself. */
const SECRET_BYTES = 32;

function readKeyFile(file: string): Buffer {
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!isStrongSecret(text)) {
    throw new ConfigError(`MANAGE_LINK_KEY_FILE: ${file} must hold at least 32 random bytes as 64 hex digits or 43 base64url characters`);
  }
  return Buffer.from(text);
}

/**
 * The secret that signs manage links: MANAGE_LINK_SECRET, or the key file, made on first start
 * (readable by its owner only) when the configuration allows. Processes starting together all
 * end up with the one file: only one can create it.
 */
export function loadManageLinkSecret(source: ManageLinkSecretSource): Buffer {
  if ('value' in source) return Buffer.from(source.value);
  const { keyFile, create } = source;
  try {
    return readKeyFile(keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (!create) throw new ConfigError(`MANAGE_LINK_KEY_FILE: ${keyFile} does not exist; in production on PostgreSQL every instance must read the same secret`);
  }
  fs.mkdirSync(path.dirname(path.resolve(keyFile)), { recursive: true });
  // Written whole under another name, then linked: no process ever reads a half-written file.
  const draft = `${keyFile}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, `${randomBytes(SECRET_BYTES).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    fs.linkSync(draft, keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return readKeyFile(keyFile);
}

export { keysCreate, keysList, keysRevoke } from './cli.js';
export { touchKeys } from './repository.js';
export { createKey, DEFAULT_LIMITS, findActiveKey, listKeys, revokeKey } from './service.js';

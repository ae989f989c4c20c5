export { audit } from './cli.js';
export { AuditRecorder } from './recorder.js';
export { countEntries, requestsPerKeySince, searchEntries, usagePerKeyHour, type AuditEntry, type AuditFilter, type HourlyUsage, type StatusClass } from './repository.js';

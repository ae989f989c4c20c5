export { resolveWithDns, type AddressRules, type Resolve } from './address.js';
export { RETRY_SCHEDULE_MS, webhookQueue } from './delivery.js';
export { dispatchTask } from './dispatch.js';
export { webhookRoutes } from './routes.js';
export { ROTATION_OVERLAP_MS, WebhookSecrets } from './secrets.js';
export { endpointsWithRecentDeliveries, retryDelivery, type WebhookContext } from './service.js';

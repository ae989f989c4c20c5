export { resolveWithDns, type AddressRules, type Resolve } from './address.js';
export { DISABLE_AFTER_MS, RETRY_SCHEDULE_MS, webhookQueue, type WebhookQueue } from './delivery.js';
export { dispatchEvents, dispatchTask } from './dispatch.js';
export { webhookRoutes } from './routes.js';
export { ROTATION_OVERLAP_MS, WebhookSecrets } from './secrets.js';
export { endpointsWithRecentDeliveries, retryDelivery, type WebhookContext } from './service.js';
export type { DeliveryStatus, EndpointStatus } from './table.js';

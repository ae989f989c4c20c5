export { ROTATION_OVERLAP_MS, WebhookSecrets } from './secrets.js';
export type { DeliveryStatus, EndpointStatus } from './table.js';

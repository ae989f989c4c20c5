import { createHmac } from 'node:crypto';
import type { WebhookEndpointsTable } from './table.js';

type EndpointVersions = Pick<WebhookEndpointsTable, 'secret_version' | 'previous_secret_version' | 'previous_secret_expires_at'> & { id: number };

/** How long the secret before a rotation stays valid: integrators switch within it. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * The endpoints' signing secrets, each an HMAC under the server's secret of the endpoint's id and
 * its secret version: a copy of the database holds no secret, and a rotation (a new version) makes
 * a new one. Written in the Standard Webhooks form `whsec_` + base64 of 32 bytes.
 */
export class WebhookSecrets {
  constructor(private readonly serverSecret: Buffer) {}

  secret(endpointId: number, version: number): string {
    const bytes = createHmac('sha256', this.serverSecret).update(`webhook-secret:${endpointId}:${version}`).digest();
    return `whsec_${bytes.toString('base64')}`;
  }

  /** The secrets a delivery at `now` is signed with: the current one, and the previous one within a day of a rotation. */
  signingSecrets(endpoint: EndpointVersions, now: Date): string[] {
    const secrets = [this.secret(endpoint.id, endpoint.secret_version)];
    const { previous_secret_version: previous, previous_secret_expires_at: expires } = endpoint;
    if (previous !== null && expires !== null && Date.parse(expires) > now.getTime()) secrets.push(this.secret(endpoint.id, previous));
    return secrets;
  }
}

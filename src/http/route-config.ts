import type { ApiKey, Permission } from '../core/access.js';
import type { ErrorStyle } from '../core/errors.js';

export const API_ROOT = '/booking-api/v1';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Every route under the API root declares what a caller needs: a permission, `any` valid
     * key, or `public` (no key). Checked by the auth hook, never by matching URL strings.
     */
    permission?: Permission | 'any' | 'public';
    /** 403 code when the permission is missing (POST /customers answers insufficient_permissions). */
    forbiddenCode?: 'forbidden' | 'insufficient_permissions';
    /** How errors on this route are rendered (spec, Response envelopes). Default 1. */
    errorStyle?: ErrorStyle;
    /** The code for schema violations; the customer list answers invalid_parameters. */
    validationErrorCode?: 'invalid_request' | 'invalid_parameters';
  }
  interface FastifyRequest {
    /** The authenticated key, set by the auth hook on routes that need one. */
    apiKey: ApiKey | undefined;
    /** Set when the request is one the audit log records. */
    audited: boolean;
  }
}

import type { App } from '../../core/app.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import {
  DeliveryListResponse,
  DeliveryParams,
  DeliveryResponse,
  WebhookCreateBody,
  WebhookDeleted,
  WebhookListQuery,
  WebhookListResponse,
  WebhookParams,
  WebhookResponse,
  WebhookUpdateBody,
  WebhookWithSecretResponse,
} from './schemas.js';
import * as service from './service.js';

const tags = ['webhooks'];

/** The webhook endpoints and their deliveries; `context` holds the secrets and the address rules. */
export function webhookRoutes(context: service.WebhookContext) {
  return async function routes(app: App): Promise<void> {
    app.post(
      '/webhooks',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'createWebhook',
          summary: 'Subscribe an endpoint to events; the answer shows its signing secret, this once',
          tags,
          body: WebhookCreateBody,
          response: { 201: WebhookWithSecretResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
        },
      },
      async (request, reply) => reply.status(201).send({ success: true as const, message: 'Webhook endpoint created', data: await service.createEndpoint(app.db, context, request.body) }),
    );

    app.get(
      '/webhooks',
      {
        config: { permission: 'webhooks:read' },
        schema: { operationId: 'listWebhooks', summary: 'List webhook endpoints, newest first', tags, querystring: WebhookListQuery, response: { 200: WebhookListResponse, ...errorResponses([400, ...AUTH_ERRORS]) } },
      },
      async (request) => service.listEndpoints(app.db, request.query),
    );

    app.get(
      '/webhooks/:id',
      {
        config: { permission: 'webhooks:read' },
        schema: { operationId: 'getWebhook', summary: 'Read a webhook endpoint', tags, params: WebhookParams, response: { 200: WebhookResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) } },
      },
      async (request) => ({ success: true as const, data: await service.getEndpoint(app.db, request.params.id) }),
    );

    app.put(
      '/webhooks/:id',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'updateWebhook',
          summary: 'Change a webhook endpoint; only supplied fields change',
          description: 'Enabling an endpoint the service disabled clears its failure record.',
          tags,
          params: WebhookParams,
          body: WebhookUpdateBody,
          response: { 200: WebhookResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request) => ({ success: true as const, message: 'Webhook endpoint updated', data: await service.updateEndpoint(app.db, context, request.params.id, request.body) }),
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { permission: 'webhooks:write' },
        schema: { operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries', tags, params: WebhookParams, response: { 200: WebhookDeleted, ...errorResponses([400, 404, ...AUTH_ERRORS]) } },
      },
      async (request) => ({ success: true as const, data: await service.deleteEndpoint(app.db, request.params.id) }),
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'rotateWebhookSecret',
          summary: 'Make a new signing secret, shown this once; the old one also signs for 24 hours',
          tags,
          params: WebhookParams,
          response: { 200: WebhookWithSecretResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request) => ({ success: true as const, message: 'Signing secret rotated', data: await service.rotateSecret(app.db, context, request.params.id) }),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          operationId: 'listWebhookDeliveries',
          summary: "An endpoint's deliveries, newest first, each with its attempts",
          tags,
          params: WebhookParams,
          querystring: WebhookListQuery,
          response: { 200: DeliveryListResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request) => service.listDeliveries(app.db, request.params.id, request.query),
    );

    app.post(
      '/webhooks/:id/deliveries/:delivery_id/retry',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'retryWebhookDelivery',
          summary: 'Send a delivery again now, whatever became of it',
          tags,
          params: DeliveryParams,
          response: { 202: DeliveryResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request, reply) =>
        reply.status(202).send({ success: true as const, message: 'Delivery due now', data: await service.retryDelivery(app.db, request.params.id, request.params.delivery_id) }),
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          operationId: 'testWebhook',
          summary: 'Send a webhook.test delivery to this endpoint alone',
          tags,
          params: WebhookParams,
          response: { 202: DeliveryResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request, reply) => reply.status(202).send({ success: true as const, message: 'Test delivery due now', data: await service.testEndpoint(app.db, request.params.id) }),
    );
  };
}

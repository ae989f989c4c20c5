import { Type } from 'typebox';
import type { App } from '../../core/app.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import { AgentParams, FeedCreateBody, FeedDeletedResponse, FeedListQuery, FeedListResponse, FeedParams, FeedWithUrlResponse } from './schemas.js';
import * as service from './service.js';

const tags = ['agents'];

/** An agent's calendar feeds, made, listed and revoked through the API; `publicUrl` starts their addresses. */
export function calendarFeedRoutes(publicUrl: string) {
  return async function routes(app: App): Promise<void> {
    app.post(
      '/agents/:id/calendar-feeds',
      {
        config: { permission: 'agents:write' },
        schema: {
          operationId: 'createCalendarFeed',
          summary: "Make a secret iCalendar feed of the agent's bookings; the answer shows its URL, this once",
          description: 'The feed lists the pending and approved bookings from 30 days back to a year ahead. Anyone with the URL can read it: revoke it by deleting the feed. Only a hash of its token is kept, so a retry with the same Idempotency-Key answers 409 idempotency_response_lost.',
          tags,
          params: AgentParams,
          body: FeedCreateBody,
          response: { 201: FeedWithUrlResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request, reply) =>
        reply.status(201).send({ success: true as const, message: 'Calendar feed created', data: await service.createFeed(app.db, publicUrl, request.params.id, request.body) }),
    );

    app.get(
      '/agents/:id/calendar-feeds',
      {
        config: { permission: 'agents:read' },
        schema: {
          operationId: 'listCalendarFeeds',
          summary: "List the agent's calendar feeds, newest first, without their URLs",
          tags,
          params: AgentParams,
          querystring: FeedListQuery,
          response: { 200: FeedListResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request) => service.listFeeds(app.db, request.params.id, request.query),
    );

    app.delete(
      '/agents/:id/calendar-feeds/:feed_id',
      {
        config: { permission: 'agents:write' },
        schema: {
          operationId: 'deleteCalendarFeed',
          summary: 'Revoke a calendar feed: its URL answers 404 from now on',
          tags,
          params: FeedParams,
          response: { 200: FeedDeletedResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request) => {
        await service.deleteFeed(app.db, request.params.id, request.params.feed_id);
        return { success: true as const, data: { id: request.params.feed_id, deleted: true as const } };
      },
    );
  };
}

/** `GET /calendar-feeds/{token}.ics`: the token is the only credential; a wrong one is a plain 404. */
export function publicFeedRoutes(publicUrl: string) {
  return async function routes(app: App): Promise<void> {
    app.get('/:token.ics', { schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 100 }) }) } }, async (request, reply) => {
      const document = await service.feedDocument(app.db, publicUrl, request.params.token);
      // The answer holds customers' names and contacts: no cache may keep it.
      reply.header('cache-control', 'no-store');
      if (document === undefined) return reply.status(404).type('text/plain; charset=utf-8').send('Not found\n');
      return reply.type('text/calendar; charset=utf-8').send(document);
    });
  };
}

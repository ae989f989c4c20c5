import type { App } from '../../core/app.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import { EventListQuery, EventListResponse } from './schemas.js';
import { listEvents } from './service.js';

export default async function eventRoutes(app: App): Promise<void> {
  app.get(
    '/events',
    {
      config: { permission: 'events:read' },
      schema: {
        operationId: 'listEvents',
        summary: 'Read the change feed: events oldest first, after a cursor',
        description:
          'Every change writes its event in the same transaction. Events are listed in commit order: an event never appears behind an `after` a reader has already passed, so walking the feed with `next_after` sees each event once.',
        tags: ['events'],
        querystring: EventListQuery,
        response: { 200: EventListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({ success: true as const, ...(await listEvents(app.db, request.query)) }),
  );
}

import { DateTime } from 'luxon';
import { Type } from 'typebox';
import type { App } from '../../core/app.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import { isoWithOffset } from '../../lib/time.js';

const StatusResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    timezone: Type.String({ description: 'IANA zone name of the site' }),
    current_time: Type.String({ description: 'ISO 8601 with offset, in the site timezone' }),
  }),
});

export default async function statusRoutes(app: App): Promise<void> {
  app.get(
    '/status',
    {
      config: { permission: 'any' },
      schema: { operationId: 'getStatus', summary: 'Site timezone and current time', tags: ['status'], response: { 200: StatusResponse, ...errorResponses(AUTH_ERRORS) } },
    },
    async (request) => {
      const { timezone } = await request.site();
      const current_time = isoWithOffset(DateTime.now().setZone(timezone));
      return { status: 'success' as const, data: { timezone, current_time } };
    },
  );
}

import type { App } from '../../core/app.js';
import { DeletedData, envelopeB } from '../../core/envelope.js';
import { notFound } from '../../core/errors.js';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.js';
import { type Schedule } from './model.js';
import { readAgentSchedule, readSiteSchedule, writeAgentSchedule, writeSiteSchedule } from './repository.js';
import { AgentScheduleResponse, ScheduleBody, SiteScheduleResponse } from './schemas.js';
import { validateSchedule } from './service.js';

const tags = ['schedules'];

export default async function scheduleRoutes(app: App): Promise<void> {
  app.get(
    '/schedule',
    {
      config: { permission: 'settings:read' },
      schema: { operationId: 'getSiteSchedule', summary: "The site's weekly hours and date exceptions", tags, response: { 200: SiteScheduleResponse, ...errorResponses(AUTH_ERRORS) } },
    },
    async () => ({ success: true as const, data: await readSiteSchedule(app.db) }),
  );

  app.put(
    '/schedule',
    {
      config: { permission: 'settings:write' },
      schema: {
        operationId: 'replaceSiteSchedule',
        summary: "Replaces the site's weekly hours and date exceptions",
        description: 'Agents without hours of their own work these. Times are HH:MM; periods of one day must not overlap.',
        tags,
        body: ScheduleBody,
        response: { 200: SiteScheduleResponse, ...errorResponses([400, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const schedule = validateSchedule(request.body);
      await writeSiteSchedule(app.db, schedule);
      return { success: true as const, message: 'Site schedule updated', data: schedule };
    },
  );

  const agentView = async (own: Schedule | null) => ({
    ...(own ?? (await readSiteSchedule(app.db))),
    uses_site_schedule: own === null,
  });

  app.get(
    '/agents/:id/schedule',
    {
      config: { permission: 'settings:read' },
      schema: {
        operationId: 'getAgentSchedule',
        summary: "An agent's working hours",
        description: "The agent's own hours and exceptions, or the site schedule when the agent has none (uses_site_schedule).",
        tags,
        params: IdParams,
        response: { 200: AgentScheduleResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const found = await readAgentSchedule(app.db, request.params.id);
      if (!found) throw notFound('agent_not_found', 'Agent', request.params.id);
      return { success: true as const, data: await agentView(found.schedule) };
    },
  );

  app.put(
    '/agents/:id/schedule',
    {
      config: { permission: 'settings:write' },
      schema: {
        operationId: 'replaceAgentSchedule',
        summary: "Sets an agent's own weekly hours and exceptions (replacing the site's for this agent)",
        tags,
        params: IdParams,
        body: ScheduleBody,
        response: { 200: AgentScheduleResponse, ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const schedule = validateSchedule(request.body);
      if (!(await writeAgentSchedule(app.db, request.params.id, schedule))) throw notFound('agent_not_found', 'Agent', request.params.id);
      return { success: true as const, message: 'Agent schedule updated', data: await agentView(schedule) };
    },
  );

  app.delete(
    '/agents/:id/schedule',
    {
      config: { permission: 'settings:write' },
      schema: {
        operationId: 'deleteAgentSchedule',
        summary: "Removes an agent's own hours: the agent works the site schedule again",
        tags,
        params: IdParams,
        description: 'Envelope B with `data: {id, deleted: true}` (contract §3), `id` being the agent\'s.',
        response: { 200: envelopeB(DeletedData), ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      if (!(await writeAgentSchedule(app.db, request.params.id, null))) throw notFound('agent_not_found', 'Agent', request.params.id);
      return { success: true as const, message: 'The agent works the site schedule', data: { id: request.params.id, deleted: true as const } };
    },
  );
}

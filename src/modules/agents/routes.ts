import type { App } from '../../core/app.js';
import { parseInclude, sortDirection } from '../../http/list-query.js';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.js';
import { storedDayBounds } from '../availability/index.js';
import {
  AGENT_INCLUDES,
  AgentDeletedResponse,
  AgentListQuery,
  AgentListResponse,
  AgentReadQuery,
  AgentResponse,
  AGENTS_PER_PAGE,
  CreateAgentBody,
  UpdateAgentBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['agents'];

export default async function agentRoutes(app: App): Promise<void> {
  app.get(
    '/agents',
    {
      config: { permission: 'agents:read' },
      schema: {
        operationId: 'listAgents',
        summary: 'Lists agents',
        description: 'Date filters include the whole named day in the site timezone. include=services shows is_custom_* per service.',
        tags,
        querystring: AgentListQuery,
        response: { 200: AgentListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const q = request.query;
      const include = parseInclude(q.include, AGENT_INCLUDES);
      const { timezone } = await request.site();
      const page = { page: q.page ?? 1, perPage: q.per_page ?? AGENTS_PER_PAGE };
      const { data, page: p } = await service.listAgents(
        app.db,
        request.site,
        {
          status: q.status,
          search: q.search,
          email: q.email,
          phone: q.phone,
          locationId: q.location_id,
          serviceId: q.service_id,
          createdFrom: q.created_after && storedDayBounds(q.created_after, timezone).from,
          createdBefore: q.created_before && storedDayBounds(q.created_before, timezone).until,
        },
        { by: q.order_by ?? 'first_name', direction: sortDirection(q.order) },
        page,
        include,
      );
      return { success: true as const, data, pagination: { page: p.page, per_page: p.perPage, total: p.total, total_pages: p.totalPages } };
    },
  );

  app.get(
    '/agents/:id',
    {
      config: { permission: 'agents:read' },
      schema: {
        operationId: 'getAgent',
        summary: 'One agent',
        tags,
        params: IdParams,
        querystring: AgentReadQuery,
        response: { 200: AgentResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await service.getAgent(app.db, request.site, request.params.id, parseInclude(request.query.include, AGENT_INCLUDES)),
    }),
  );

  app.post(
    '/agents',
    {
      config: { permission: 'agents:write' },
      schema: {
        operationId: 'createAgent',
        summary: 'Creates an agent, with the services and locations it serves',
        tags,
        body: CreateAgentBody,
        response: { 201: AgentResponse, ...errorResponses([400, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const data = await service.createAgent(app.db, request.site, request.body);
      return reply.status(201).send({ success: true as const, message: 'Agent created', data });
    },
  );

  app.put(
    '/agents/:id',
    {
      config: { permission: 'agents:write' },
      schema: {
        operationId: 'updateAgent',
        summary: 'Updates an agent; only the fields sent change',
        description:
          'service_ids and services together replace the agent\'s services: an entry of services sets its custom values, a plain id keeps the ones stored. location_ids replaces the locations.',
        tags,
        params: IdParams,
        body: UpdateAgentBody,
        response: { 200: AgentResponse, ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      message: 'Agent updated',
      data: await service.updateAgent(app.db, request.site, request.params.id, request.body),
    }),
  );

  app.delete(
    '/agents/:id',
    {
      config: { permission: 'agents:write' },
      schema: {
        operationId: 'deleteAgent',
        summary: 'Deletes an agent without upcoming bookings',
        description: 'Answers 409 agent_has_bookings while upcoming bookings that are not cancelled need it. Past and cancelled bookings keep it as their history: it is then retired (hidden and unbookable), not removed. ' +
          'To keep an agent with upcoming bookings out of new ones, set its status to disabled.',
        tags,
        params: IdParams,
        response: { 200: AgentDeletedResponse, ...errorResponses([400, 404, 409, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      await service.deleteAgent(app.db, request.params.id);
      return { success: true as const, message: 'Agent deleted', data: { id: request.params.id, deleted: true as const } };
    },
  );
}

import type { App } from '../../core/app.js';
import { parseInclude, sortDirection } from '../../http/list-query.js';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.js';
import { toCents } from '../../lib/money.js';
import { storedDayBounds } from '../availability/index.js';
import { categoryRoutes } from './category-routes.js';
import {
  CreateServiceBody,
  SERVICE_INCLUDES,
  ServiceDeletedResponse,
  ServiceListQuery,
  ServiceListResponse,
  ServiceReadQuery,
  ServiceResponse,
  SERVICES_PER_PAGE,
  UpdateServiceBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['services'];

export default async function catalogRoutes(app: App): Promise<void> {
  app.get(
    '/services',
    {
      config: { permission: 'services:read' },
      schema: {
        operationId: 'listServices',
        summary: 'Lists services',
        description: 'Price filters and order_by=price use price_min. Date filters include the whole named day in the site timezone.',
        tags,
        querystring: ServiceListQuery,
        response: { 200: ServiceListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const q = request.query;
      const include = parseInclude(q.include, SERVICE_INCLUDES);
      const { timezone } = await request.site();
      const page = { page: q.page ?? 1, perPage: q.per_page ?? SERVICES_PER_PAGE };
      const { data, page: p } = await service.listServices(
        app.db,
        request.site,
        {
          search: q.search,
          name: q.name,
          status: q.status,
          categoryId: q.category_id,
          locationId: q.location_id,
          agentId: q.agent_id,
          visibility: q.visibility,
          priceMinCents: q.price_min === undefined ? undefined : toCents(q.price_min),
          priceMaxCents: q.price_max === undefined ? undefined : toCents(q.price_max),
          durationMin: q.duration_min,
          durationMax: q.duration_max,
          createdFrom: q.created_after && storedDayBounds(q.created_after, timezone).from,
          createdBefore: q.created_before && storedDayBounds(q.created_before, timezone).until,
          updatedFrom: q.updated_after && storedDayBounds(q.updated_after, timezone).from,
          updatedBefore: q.updated_before && storedDayBounds(q.updated_before, timezone).until,
        },
        { by: q.order_by ?? 'id', direction: sortDirection(q.order) },
        page,
        include,
      );
      return {
        success: true as const,
        data,
        pagination: { current_page: p.page, per_page: p.perPage, total_items: p.total, total_pages: p.totalPages },
      };
    },
  );

  app.get(
    '/services/:id',
    {
      config: { permission: 'services:read' },
      schema: {
        operationId: 'getService',
        summary: 'One service',
        tags,
        params: IdParams,
        querystring: ServiceReadQuery,
        response: { 200: ServiceResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await service.getService(app.db, request.site, request.params.id, parseInclude(request.query.include, SERVICE_INCLUDES)),
    }),
  );

  app.post(
    '/services',
    {
      config: { permission: 'services:write' },
      schema: {
        operationId: 'createService',
        summary: 'Creates a service',
        description: 'Only name is required; the other fields take the defaults shown.',
        tags,
        body: CreateServiceBody,
        response: { 201: ServiceResponse, ...errorResponses([400, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const data = await service.createService(app.db, request.site, request.body);
      return reply.status(201).send({ success: true as const, message: 'Service created', data });
    },
  );

  app.put(
    '/services/:id',
    {
      config: { permission: 'services:write' },
      schema: {
        operationId: 'updateService',
        summary: 'Updates a service; only the fields sent change',
        tags,
        params: IdParams,
        body: UpdateServiceBody,
        response: { 200: ServiceResponse, ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      message: 'Service updated',
      data: await service.updateService(app.db, request.site, request.params.id, request.body),
    }),
  );

  app.delete(
    '/services/:id',
    {
      config: { permission: 'services:write' },
      schema: {
        operationId: 'deleteService',
        summary: 'Deletes a service without upcoming bookings',
        description: 'Answers 409 service_has_bookings while upcoming bookings that are not cancelled need it. Past and cancelled bookings keep it as their history: it is then retired (hidden and unbookable), not removed. ' +
          'To keep a service with upcoming bookings out of new ones, set its status to disabled.',
        tags,
        params: IdParams,
        response: { 200: ServiceDeletedResponse, ...errorResponses([400, 404, 409, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      await service.deleteService(app.db, request.params.id);
      return { success: true as const, message: 'Service deleted', data: { id: request.params.id, deleted: true as const } };
    },
  );

  await app.register(
    categoryRoutes({ table: 'service_categories', path: '/service-categories', what: 'Service category', operationNoun: ['ServiceCategory', 'ServiceCategories'], read: 'services:read', write: 'services:write' }),
  );
}

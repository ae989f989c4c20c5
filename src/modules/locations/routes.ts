import type { App } from '../../core/app.js';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.js';
import { categoryRoutes } from '../catalog/index.js';
import {
  CreateLocationBody,
  LocationDeletedResponse,
  LocationListQuery,
  LocationListResponse,
  LocationResponse,
  LOCATIONS_PER_PAGE,
  UpdateLocationBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['locations'];

export default async function locationRoutes(app: App): Promise<void> {
  app.get(
    '/locations',
    {
      config: { permission: 'locations:read' },
      schema: {
        operationId: 'listLocations',
        summary: 'Lists locations by order_number, then id',
        tags,
        querystring: LocationListQuery,
        response: { 200: LocationListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      const { page = 1, per_page = LOCATIONS_PER_PAGE, search, status } = request.query;
      const { data, page: p } = await service.listLocations(app.db, request.site, { search, status }, { page, perPage: per_page });
      return {
        success: true as const,
        data,
        pagination: {
          page: p.page,
          per_page: p.perPage,
          total: p.total,
          total_pages: p.totalPages,
          has_next_page: p.hasNext,
          has_previous_page: p.hasPrevious,
        },
      };
    },
  );

  app.get(
    '/locations/:id',
    {
      config: { permission: 'locations:read' },
      schema: { operationId: 'getLocation', summary: 'One location', tags, params: IdParams, response: { 200: LocationResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) } },
    },
    async (request) => ({ success: true as const, data: await service.getLocation(app.db, request.site, request.params.id) }),
  );

  app.post(
    '/locations',
    {
      config: { permission: 'locations:write' },
      schema: {
        operationId: 'createLocation',
        summary: 'Creates a location',
        tags,
        body: CreateLocationBody,
        response: { 201: LocationResponse, ...errorResponses([400, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const data = await service.createLocation(app.db, request.site, request.body);
      return reply.status(201).send({ success: true as const, message: 'Location created', data });
    },
  );

  app.put(
    '/locations/:id',
    {
      config: { permission: 'locations:write' },
      schema: {
        operationId: 'updateLocation',
        summary: 'Updates a location; only the fields sent change',
        tags,
        params: IdParams,
        body: UpdateLocationBody,
        response: { 200: LocationResponse, ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      message: 'Location updated',
      data: await service.updateLocation(app.db, request.site, request.params.id, request.body),
    }),
  );

  app.delete(
    '/locations/:id',
    {
      config: { permission: 'locations:write' },
      schema: {
        operationId: 'deleteLocation',
        summary: 'Deletes a location without upcoming bookings',
        description: 'Answers 409 location_has_bookings while upcoming bookings that are not cancelled need it. Past and cancelled bookings keep it as their history: it is then retired (hidden and unbookable), not removed. ' +
          'Its agent connections are removed with it.',
        tags,
        params: IdParams,
        response: { 200: LocationDeletedResponse, ...errorResponses([400, 404, 409, ...AUTH_ERRORS]) },
      },
    },
    async (request) => {
      await service.deleteLocation(app.db, request.params.id);
      return { success: true as const, message: 'Location deleted', data: { id: request.params.id, deleted: true as const } };
    },
  );

  await app.register(
    categoryRoutes({ table: 'location_categories', path: '/location-categories', what: 'Location category', operationNoun: ['LocationCategory', 'LocationCategories'], read: 'locations:read', write: 'locations:write' }),
  );
}

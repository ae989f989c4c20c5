import type { App } from '../../core/app.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import {
  CodeParams,
  CouponCreateBody,
  CouponDeleted,
  CouponListQuery,
  CouponListResponse,
  CouponResponse,
  CouponUpdateBody,
} from './schemas.js';
import * as service from './service.js';

const tags = ['coupons'];

export default async function couponRoutes(app: App): Promise<void> {
  app.post(
    '/coupons',
    {
      config: { permission: 'coupons:write' },
      schema: {
        operationId: 'createCoupon',
        summary: 'Create a coupon',
        tags,
        body: CouponCreateBody,
        response: { 201: CouponResponse, ...errorResponses([400, 409, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request, reply) => {
      const data = await service.createCoupon(app.db, request.site, request.body);
      return reply.status(201).send({ success: true as const, message: 'Coupon created', data });
    },
  );

  app.get(
    '/coupons',
    {
      config: { permission: 'coupons:read' },
      schema: {
        operationId: 'listCoupons',
        summary: 'List coupons, newest first',
        tags,
        querystring: CouponListQuery,
        response: { 200: CouponListResponse, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => service.listCoupons(app.db, request.site, request.query),
  );

  app.get(
    '/coupons/:code',
    {
      config: { permission: 'coupons:read' },
      schema: {
        operationId: 'getCoupon',
        summary: 'Read a coupon by code (case-insensitive)',
        tags,
        params: CodeParams,
        response: { 200: CouponResponse, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({ success: true as const, data: await service.getCoupon(app.db, request.site, request.params.code) }),
  );

  app.put(
    '/coupons/:code',
    {
      config: { permission: 'coupons:write' },
      schema: {
        operationId: 'updateCoupon',
        summary: 'Update a coupon; only supplied fields change',
        tags,
        params: CodeParams,
        body: CouponUpdateBody,
        response: { 200: CouponResponse, ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      message: 'Coupon updated',
      data: await service.updateCoupon(app.db, request.site, request.params.code, request.body),
    }),
  );

  app.delete(
    '/coupons/:code',
    {
      config: { permission: 'coupons:write' },
      schema: {
        operationId: 'deleteCoupon',
        summary: 'Delete a coupon; orders keep the code they were given',
        tags,
        params: CodeParams,
        response: { 200: CouponDeleted, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({ success: true as const, message: 'Coupon deleted', data: await service.deleteCoupon(app.db, request.params.code) }),
  );
}

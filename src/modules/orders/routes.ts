import type { App } from '../../core/app.js';
import { apiActor } from '../../http/auth.js';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.js';
import { Invoice, InvoiceParams, InvoiceUpdateBody, Order, OrderIdParams, OrderList, OrderListQuery, OrderRefParams, OrderUpdateBody, SubListQuery, Transaction, TransactionParams } from './schemas.js';
import * as service from './service.js';
import { envelopeB, envelopeBList } from '../../core/envelope.js';

const tags = ['orders'];

export default async function orderRoutes(app: App): Promise<void> {
  app.get(
    '/orders',
    {
      config: { permission: 'orders:read' },
      schema: {
        operationId: 'listOrders',
        summary: 'List orders, newest first unless sorted otherwise',
        tags,
        querystring: OrderListQuery,
        response: { 200: OrderList, ...errorResponses([400, ...AUTH_ERRORS]) },
      },
    },
    async (request) => service.listOrders(app.db, request.site, request.query),
  );

  app.get(
    '/orders/:id',
    {
      config: { permission: 'orders:read' },
      schema: {
        operationId: 'getOrder',
        summary: 'Read an order with its items (no envelope)',
        tags,
        params: OrderIdParams,
        response: { 200: Order, ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => service.getOrder(app.db, request.site, request.params.id),
  );

  app.put(
    '/orders/:id',
    {
      config: { permission: 'orders:write' },
      schema: {
        operationId: 'updateOrder',
        summary: 'Update an order; customer_id transfers it and its bookings, coupon_code applies a coupon',
        description:
          'subtotal is the sum of the live items (a given one must match); total is subtotal − discount_total − coupon_discount + tax_total ' +
          '(a given total must match). A new total moves payment_status with the ledger and the charge of invoices still to be paid. ' +
          'status cancelled cancels the order’s bookings and closes the order once it holds no money (docs/money.md).',
        tags,
        params: OrderIdParams,
        body: OrderUpdateBody,
        response: { 200: Order, ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => service.updateOrder(app.db, { actor: apiActor(request), site: request.site, bookings: app.bookingEvents }, request.params.id, request.body),
  );

  app.get(
    '/orders/:order_id/invoices',
    {
      config: { permission: 'orders:read' },
      schema: {
        operationId: 'listOrderInvoices',
        summary: "List an order's invoices",
        tags,
        params: OrderRefParams,
        querystring: SubListQuery,
        response: { 200: envelopeBList(Invoice), ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => service.listInvoices(app.db, request.site, request.params.order_id, request.query),
  );

  app.get(
    '/orders/:order_id/invoices/:invoice_id',
    {
      config: { permission: 'orders:read' },
      schema: {
        operationId: 'getOrderInvoice',
        summary: 'Read an invoice',
        tags,
        params: InvoiceParams,
        response: { 200: envelopeB(Invoice), ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({ success: true as const, data: await service.getInvoice(app.db, request.site, request.params.order_id, request.params.invoice_id) }),
  );

  app.put(
    '/orders/:order_id/invoices/:invoice_id',
    {
      config: { permission: 'orders:write' },
      schema: {
        operationId: 'updateOrderInvoice',
        summary: 'Update an invoice; status paid records one capture of what it lacks, at most the balance due',
        description: 'A paid invoice cannot go back; charge_amount may not exceed the order balance (docs/money.md).',
        tags,
        params: InvoiceParams,
        body: InvoiceUpdateBody,
        response: { 200: envelopeB(Invoice), ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      message: 'Invoice updated',
      data: await service.updateInvoice(app.db, { actor: apiActor(request), site: request.site, bookings: app.bookingEvents }, request.params.order_id, request.params.invoice_id, request.body),
    }),
  );

  app.get(
    '/orders/:order_id/transactions',
    {
      config: { permission: 'orders:read' },
      schema: {
        operationId: 'listOrderTransactions',
        summary: "List an order's payment transactions, oldest first",
        tags,
        params: OrderRefParams,
        querystring: SubListQuery,
        response: { 200: envelopeBList(Transaction), ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => service.listOrderTransactions(app.db, request.site, request.params.order_id, request.query),
  );

  app.get(
    '/orders/:order_id/transactions/:transaction_id',
    {
      config: { permission: 'orders:read' },
      schema: {
        operationId: 'getOrderTransaction',
        summary: 'Read a payment transaction of an order',
        tags,
        params: TransactionParams,
        response: { 200: envelopeB(Transaction), ...errorResponses([400, 404, ...AUTH_ERRORS]) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await service.getOrderTransaction(app.db, request.site, request.params.order_id, request.params.transaction_id),
    }),
  );
}

import { Type } from 'typebox';
import type { App } from '../../core/app.js';
import { DeletedData, envelopeB, listEnvelopeB } from '../../core/envelope.js';
import { notFound } from '../../core/errors.js';
import { FieldErrors } from '../../core/field-errors.js';
import { pageOf, pageParams } from '../../core/pagination.js';
import { AUTH_ERRORS, checkedInCode, errorResponses, IdParams } from '../../http/schemas.js';
import type { Permission } from '../../core/access.js';
import { localDateTime } from '../../lib/time.js';
import * as repository from './category-repository.js';

const Category = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, site timezone' }),
  updated_at: Type.String({ description: 'YYYY-MM-DD HH:MM:SS, site timezone' }),
}, { title: 'Category' });
const CategoryBody = Type.Object({ name: Type.String({ description: '1 to 100 characters', ...checkedInCode({ minLength: 1, maxLength: 100 }) }) });
const CategoryPagination = Type.Object({ page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer(), total_pages: Type.Integer() });

export interface CategoryKind {
  table: repository.CategoryTable;
  path: string;
  what: string;
  /** The resource in operation ids, singular and plural: ServiceCategory, ServiceCategories. */
  operationNoun: readonly [string, string];
  read: Permission;
  write: Permission;
}

function checkedName(raw: string): string {
  const name = raw.trim();
  const errors = new FieldErrors();
  if (name.length < 1 || name.length > 100) errors.add('name', 'must be 1 to 100 characters');
  errors.throwIfAny();
  return name;
}

function render(row: repository.CategoryRow, timezone: string) {
  return { id: row.id, name: row.name, created_at: localDateTime(row.created_at, timezone), updated_at: localDateTime(row.updated_at, timezone) };
}

/** Categories (id, name) of services or of locations: what `category_id` and `include=category` refer to. */
export function categoryRoutes(kind: CategoryKind) {
  const tags = ['categories'];
  const missing = (id: number) => notFound('category_not_found', kind.what, id);
  return async (app: App): Promise<void> => {
    app.get(
      kind.path,
      {
        config: { permission: kind.read },
        schema: {
          operationId: `list${kind.operationNoun[1]}`,
          summary: `Lists ${kind.what.toLowerCase().replace(/y$/, 'ie')}s by name`,
          tags,
          querystring: Type.Object(pageParams(20)),
          response: { 200: listEnvelopeB(Category, CategoryPagination), ...errorResponses([400, ...AUTH_ERRORS]) },
        },
      },
      async (request) => {
        const page = { page: request.query.page ?? 1, perPage: request.query.per_page ?? 20 };
        const [{ rows, total }, { timezone }] = await Promise.all([repository.listCategories(app.db, kind.table, page), request.site()]);
        const p = pageOf(page, total);
        return {
          success: true as const,
          data: rows.map((r) => render(r, timezone)),
          pagination: { page: p.page, per_page: p.perPage, total: p.total, total_pages: p.totalPages },
        };
      },
    );

    app.post(
      kind.path,
      {
        config: { permission: kind.write },
        schema: {
          operationId: `create${kind.operationNoun[0]}`,
          summary: `Creates a ${kind.what.toLowerCase()}`,
          tags,
          body: CategoryBody,
          response: { 201: envelopeB(Category), ...errorResponses([400, 422, ...AUTH_ERRORS]) },
        },
      },
      async (request, reply) => {
        const row = await repository.insertCategory(app.db, kind.table, checkedName(request.body.name));
        return reply.status(201).send({ success: true as const, message: `${kind.what} created`, data: render(row, (await request.site()).timezone) });
      },
    );

    app.put(
      `${kind.path}/:id`,
      {
        config: { permission: kind.write },
        schema: {
          operationId: `update${kind.operationNoun[0]}`,
          summary: `Renames a ${kind.what.toLowerCase()}`,
          tags,
          params: IdParams,
          body: CategoryBody,
          response: { 200: envelopeB(Category), ...errorResponses([400, 404, 422, ...AUTH_ERRORS]) },
        },
      },
      async (request) => {
        const row = await repository.renameCategory(app.db, kind.table, request.params.id, checkedName(request.body.name));
        if (!row) throw missing(request.params.id);
        return { success: true as const, message: `${kind.what} updated`, data: render(row, (await request.site()).timezone) };
      },
    );

    app.delete(
      `${kind.path}/:id`,
      {
        config: { permission: kind.write },
        schema: {
          operationId: `delete${kind.operationNoun[0]}`,
          summary: `Deletes a ${kind.what.toLowerCase()}; its members stay, without a category`,
          tags,
          params: IdParams,
          response: { 200: envelopeB(DeletedData), ...errorResponses([400, 404, ...AUTH_ERRORS]) },
        },
      },
      async (request) => {
        if (!(await repository.deleteCategory(app.db, kind.table, request.params.id))) throw missing(request.params.id);
        return { success: true as const, message: `${kind.what} deleted`, data: { id: request.params.id, deleted: true as const } };
      },
    );
  };
}

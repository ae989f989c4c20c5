import { Type } from 'typebox';

/** `page` and `per_page` query parameters with a list's default and maximum (spec, Common list rules). */
export function pageParams(defaultPerPage: number, maxPerPage = 100) {
  return {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPerPage, default: defaultPerPage })),
  };
}

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface Page {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export function offsetOf({ page, perPage }: PageRequest): number {
  return (page - 1) * perPage;
}

/** The numbers every pagination shape is made of; each list renders its own field names. */
export function pageOf({ page, perPage }: PageRequest, total: number): Page {
  const totalPages = Math.ceil(total / perPage);
  return { page, perPage, total, totalPages, hasNext: page < totalPages, hasPrevious: page > 1 };
}
/** The page a list query asks for, with the list's default page size. */
export function pageRequest(query: { page?: number; per_page?: number }, defaultPerPage: number): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? defaultPerPage };
}

/** `pagination` as orders show it (spec, Common list rules); coupons, invoices and payments follow it. */
export function pagination(page: PageRequest, total: number) {
  const p = pageOf(page, total);
  return { page: p.page, per_page: p.perPage, total: p.total, total_pages: p.totalPages };
}

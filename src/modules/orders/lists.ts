import { pageOf, type PageRequest } from '../../http/pagination.js';

/** The page a list query asks for, with the list's default page size. */
export function pageRequest(query: { page?: number; per_page?: number }, defaultPerPage: number): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? defaultPerPage };
}

/** `pagination` as orders show it (spec, Common list rules); coupons, invoices and payments follow it. */
export function pagination(page: PageRequest, total: number) {
  const p = pageOf(page, total);
  return { page: p.page, per_page: p.perPage, total: p.total, total_pages: p.totalPages };
}

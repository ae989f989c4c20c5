import { Type } from 'typebox';
import { DeletedData, envelopeB, listEnvelopeB } from '../../core/envelope.js';
import { pageParams } from '../../core/pagination.js';
import { checkedInCode, Id, Int32, PartialText } from '../../http/schemas.js';

export const LOCATION_STATUSES = ['active', 'inactive'] as const;
const Status = Type.Enum(LOCATION_STATUSES);
const Stamp = Type.String({ description: 'YYYY-MM-DD HH:MM:SS, site timezone' });

export const Location = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  full_address: Type.String(),
  status: Status,
  category_id: Type.Union([Type.Integer(), Type.Null()]),
  order_number: Type.Integer(),
  selection_image_id: Type.Integer(),
  created_at: Stamp,
  updated_at: Stamp,
}, { title: 'Location' });

export const LocationPagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
  has_next_page: Type.Boolean(),
  has_previous_page: Type.Boolean(),
});

export const LOCATIONS_PER_PAGE = 10;

export const LocationListQuery = Type.Object({
  ...pageParams(LOCATIONS_PER_PAGE),
  search: Type.Optional(PartialText('Part of the name or of the full address (case-insensitive)')),
  status: Type.Optional(Status),
});

const fields = {
  name: Type.String({ description: '1 to 200 characters', ...checkedInCode({ minLength: 1, maxLength: 200 }) }),
  full_address: Type.String({ description: 'at most 500 characters; default empty', ...checkedInCode({ maxLength: 500 }) }),
  status: Status,
  category_id: Type.Union([Id(), Type.Null()], { description: 'a location category, or null' }),
  order_number: Int32({ description: 'display order; default 0' }),
  selection_image_id: Int32({ minimum: 0, description: 'default 0' }),
};

export const CreateLocationBody = Type.Object({
  name: fields.name,
  full_address: Type.Optional(fields.full_address),
  status: Type.Optional(fields.status),
  category_id: Type.Optional(fields.category_id),
  order_number: Type.Optional(fields.order_number),
  selection_image_id: Type.Optional(fields.selection_image_id),
});

export const UpdateLocationBody = Type.Partial(CreateLocationBody);

export const LocationResponse = envelopeB(Location);
export const LocationListResponse = listEnvelopeB(Location, LocationPagination);
export const LocationDeletedResponse = envelopeB(DeletedData);

import { Type, type TSchema } from 'typebox';

/** Envelope B (spec, Response envelopes): `success`, optional `message`, `data`. */
export function envelopeB<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), message: Type.Optional(Type.String()), data });
}

/** Envelope B of a list: `success`, `data` and the list's own `pagination` object. */
export function listEnvelopeB<T extends TSchema, P extends TSchema>(item: T, pagination: P) {
  return Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination });
}

/** Contract §3: a delete answers `data: {id, deleted: true}`. */
export const DeletedData = Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) });

/** `pagination` of orders and of the lists that follow its shape (spec, Common list rules). */
export const Pagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  total_pages: Type.Integer(),
});


export function envelopeBList<T extends TSchema>(item: T) {
  return Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: Pagination });
}

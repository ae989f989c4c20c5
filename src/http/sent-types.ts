import AjvCompiler, { type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import type { Ajv, ValidateFunction } from 'ajv';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import { API_ROOT } from './route-config.js';
import { closedSchema, closesPart } from './strict-input.js';

/**
 * The service's Ajv coerces types, as path and query text must become numbers and booleans, and
 * as contract §3 lets a body send an id as a digit string. Unchecked, coercion also turns a body's
 * null into 0 or "", true into 1, and "" into null: `price_min: null` would store 0.00 and
 * `service_id: true` would book service 1. Before coercion, every typed scalar of a body schema
 * checks the JSON type that was sent: text may become a number, a boolean or text, a number stays
 * a number, and null and booleans stay what they are.
 */
const SENT_AS = 'sentAs';

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null';
const SCALARS: readonly string[] = ['string', 'number', 'integer', 'boolean', 'null'];

// Text that may become a number, in a body, a path or a query: decimal digits, as contract §3 has
// ids sent ("digit strings") and money written. Ajv's own coercion would also read " " as 0,
// "0x1F" as 31, "1e5" as 100000, "+1" and "1.0" as 1.
export const INTEGER_TEXT = /^-?\d+$/;
export const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

function textBecomes(types: readonly JsonType[], text: string): boolean {
  if (types.includes('string')) return true;
  if (types.includes('number') && NUMBER_TEXT.test(text)) return true;
  if (types.includes('integer') && INTEGER_TEXT.test(text)) return true;
  return types.includes('boolean');
}

export function acceptsSent(types: readonly JsonType[], data: unknown): boolean {
  if (data === null) return types.includes('null');
  switch (typeof data) {
    case 'boolean':
      return types.includes('boolean');
    case 'number':
      // JSON.parse reads 1e999 as Infinity: no field stores it, as a number or as text.
      // A number where only text is wanted is a wrong-typed field (contract §5), not text.
      return Number.isFinite(data) && types.some((type) => type === 'number' || type === 'integer');
    case 'string':
      return textBecomes(types, data);
    default:
      // Objects and arrays are never coerced: the schema's own type check refuses them.
      return true;
  }
}

const checkSent: SchemaValidateFunction = (types: JsonType[], data: unknown) => {
  if (acceptsSent(types, data)) return true;
  checkSent.errors = [{ keyword: 'type', message: `must be ${types.join(',')}`, params: { type: types.join(',') } }];
  return false;
};

function addSentAsKeyword(ajv: Ajv): void {
  ajv.addKeyword({ keyword: SENT_AS, schemaType: 'array', errors: true, validate: checkSent });
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

function declaredScalars(schema: Schema): JsonType[] | undefined {
  const declared: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (!declared.every((type) => typeof type === 'string' && SCALARS.includes(type))) return undefined;
  const types = declared as JsonType[];
  return schema.nullable === true && !types.includes('null') ? [...types, 'null'] : types;
}

const mapValues = (record: Schema, map: (value: unknown) => unknown): Schema => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/** The schema with a sent-type check before every typed scalar; the schema itself is left as it is. */
export function withSentTypes(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const copy: Schema = { ...schema };
  if (isSchema(copy.properties)) copy.properties = mapValues(copy.properties, withSentTypes);
  if (isSchema(copy.patternProperties)) copy.patternProperties = mapValues(copy.patternProperties, withSentTypes);
  if (isSchema(copy.additionalProperties)) copy.additionalProperties = withSentTypes(copy.additionalProperties);
  if (isSchema(copy.items)) copy.items = withSentTypes(copy.items);
  for (const list of ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf'] as const) {
    const value = copy[list];
    if (Array.isArray(value)) copy[list] = value.map(withSentTypes);
  }
  const types = declaredScalars(copy);
  if (types === undefined) return copy;
  // The condition has no type to coerce to, so it sees the data as sent; only a value it accepts
  // reaches the schema that coerces (with allErrors, a failed allOf branch would still coerce
  // the data in place). The else branch fails again to report the error. Ajv applies a default
  // only where a property's own schema names it, so it moves out.
  const { default: defaultValue, ...typed } = copy;
  const check = { [SENT_AS]: types };
  return { ...(defaultValue === undefined ? {} : { default: defaultValue }), if: check, then: typed, else: check };
}

/**
 * The Ajv options of every route's validation, beside Fastify's defaults. A field a closed schema
 * does not name is an error, not silently dropped (Fastify's default), and its error carries the
 * schema so the answer can name the field that was meant.
 */
export const AJV_OPTIONS = { allErrors: true, coerceTypes: true, removeAdditional: false, verbose: true } as const;

/**
 * A validator of a part of a body that its route checks apart (each bulk element, so that a bad
 * one fails alone), made as a route's body validator is: the same options, formats and sent-type
 * checks. Like those, it coerces the data it is given in place.
 */
export function bodyPartValidator<T>(schema: unknown): ValidateFunction<T> {
  const compile = sentTypeValidators()({}, { customOptions: AJV_OPTIONS }) as unknown as (route: RouteDefinition) => ValidateFunction<T>;
  // Bulk elements are parts of an API body, closed as the body is.
  return compile({ method: 'POST', url: API_ROOT, httpPart: 'body', schema });
}

/** What Fastify hands the validator compiler for each part of each route. */
interface RouteDefinition {
  method: string;
  url: string;
  httpPart: string;
  schema?: unknown;
}

/**
 * Fastify's own validator compiler, with body schemas checked by withSentTypes, and the API's
 * bodies and queries closed to fields they do not name (shared schemas too, as request parts
 * refer to them).
 */
export function sentTypeValidators(): BuildCompilerFromPool {
  const build = AjvCompiler();
  return (externalSchemas, options) => {
    const onCreate = (ajv: Ajv) => {
      options?.onCreate?.(ajv);
      addSentAsKeyword(ajv);
    };
    // Fastify calls the compiler with the route definition; the package's type names only a schema.
    const shared = Object.fromEntries(Object.entries(externalSchemas).map(([id, schema]) => [id, closedSchema(schema) as typeof schema]));
    const compile = build(shared, { ...options, onCreate }) as unknown as (route: RouteDefinition) => ReturnType<ReturnType<BuildCompilerFromPool>>;
    const compileRoute = (route: RouteDefinition) => {
      const schema = closesPart(route.httpPart, route.url) ? closedSchema(route.schema) : route.schema;
      return compile({ ...route, schema: route.httpPart === 'body' ? withSentTypes(schema) : schema });
    };
    return compileRoute as unknown as ReturnType<BuildCompilerFromPool>;
  };
}

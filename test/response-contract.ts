import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { FastifyInstance, InjectOptions } from 'fastify';

/**
 * The response half of the OpenAPI document as a test-time check: every answer a test receives
 * must be one its operation declares (status) and fit the schema declared for it (body).
 */

/** The parts of an OpenAPI 3.1 document this check reads. */
export interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation | undefined> | undefined>;
}
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown } | undefined> }>;
}

export interface ObservedResponse {
  method: string;
  /** The route's path as Fastify knows it (`/bookings/:id`), or undefined when no route matched. */
  route: string | undefined;
  url: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

/**
 * Answers Fastify or Node give before an operation's own code runs, whatever the operation (a body
 * over the size limit). While no operation in the document declares one, the document makes no
 * claim about it and it is not held against the operation; once any operation declares it, every
 * operation answering it must.
 */
const TRANSPORT_STATUSES: ReadonlySet<number> = new Set([413]);

const DOCUMENT_ID = 'urn:booking:openapi';

const pointer = (...segments: string[]): string =>
  segments.map((s) => `/${encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');

const describeErrors = (errors: ErrorObject[]): string =>
  errors.map((e) => `  ${e.instancePath || '(body)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`).join('\n');

export class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly declaredSomewhere = new Set<string>();

  constructor(private readonly document: OpenApiDocument) {
    formats.default(this.ajv);
    // The whole document, so that a response schema's `#/components/schemas/…` resolves in it.
    this.ajv.addSchema(document, DOCUMENT_ID);
    for (const item of Object.values(document.paths ?? {})) {
      for (const operation of Object.values(item ?? {})) {
        for (const status of Object.keys(operation?.responses ?? {})) this.declaredSomewhere.add(status);
      }
    }
  }

  /** Undefined when the response keeps the contract (or the document says nothing about it), else why not. */
  check(response: ObservedResponse): string | undefined {
    if (response.route === undefined) return undefined;
    const path = response.route.replace(/:(\w+)/g, '{$1}');
    const method = response.method.toLowerCase();
    const responses = this.document.paths?.[path]?.[method]?.responses;
    if (responses === undefined) return undefined;
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in responses);
    if (key === undefined) {
      if (TRANSPORT_STATUSES.has(response.status) && !this.declaredSomewhere.has(status)) return undefined;
      return this.fail(response, `status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`);
    }
    const schema = responses[key]?.content?.['application/json']?.schema;
    if (schema === undefined || !/^application\/json\b/.test(response.contentType ?? '')) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return this.fail(response, 'the body is not JSON');
    }
    const validate = this.validator(path, method, key);
    if (validate(body)) return undefined;
    return this.fail(response, `the body does not fit the declared schema:\n${describeErrors(validate.errors ?? [])}`);
  }

  private validator(path: string, method: string, status: string): ValidateFunction {
    const id = `${method} ${path} ${status}`;
    let validate = this.validators.get(id);
    if (validate === undefined) {
      const at = pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema');
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${at}` });
      this.validators.set(id, validate);
    }
    return validate;
  }

  private fail(response: ObservedResponse, why: string): string {
    return `Response breaks the OpenAPI document: ${response.method} ${response.url} answered ${response.status}: ${why}`;
  }
}

const unclaimed = new WeakMap<FastifyInstance, Map<object, string>>();

/**
 * Checks every answer of the app against its own document (read once, at the first answer). A
 * broken answer makes the `inject` that asked for it reject with the reason; answers to requests
 * from elsewhere (a real client on a listening server) wait for `takeUnclaimedFailures`.
 */
export function enforceResponseContract(app: FastifyInstance): void {
  let contract: ResponseContract | undefined;
  const broken = new Map<object, string>();
  unclaimed.set(app, broken);
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    // A route that declares no answers (a test's own) has no contract; the document lists it with a placeholder.
    if (request.routeOptions.schema?.response === undefined) return payload;
    contract ??= new ResponseContract(app.swagger() as OpenApiDocument);
    const contentType = reply.getHeader('content-type');
    const failure = contract.check({
      method: request.method,
      route: request.routeOptions.url,
      url: request.url,
      status: reply.statusCode,
      contentType: typeof contentType === 'string' ? contentType : undefined,
      body: payload.toString(),
    });
    if (failure !== undefined) broken.set(request.raw, failure);
    return payload;
  });
  const inject = app.inject.bind(app);
  // Tests call inject with options and await it; the callback and chain forms are not offered.
  const checked = async (options: InjectOptions | string) => {
    const response = await inject(options);
    const failure = broken.get(response.raw.req);
    if (failure === undefined) return response;
    broken.delete(response.raw.req);
    throw new Error(failure);
  };
  app.inject = checked as typeof app.inject;
}

/** The broken answers no inject claimed since the last call, forgotten once returned. */
export function takeUnclaimedFailures(app: FastifyInstance): string[] {
  const broken = unclaimed.get(app);
  if (broken === undefined) return [];
  const failures = [...broken.values()];
  broken.clear();
  return failures;
}

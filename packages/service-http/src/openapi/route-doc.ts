/**
 * One call per route declares what the OpenAPI document says about it: `routeDoc({...})` returns
 * the route's fastify `schema`, with an operationId, a summary, the success answers and the error
 * answers in the shared ErrorBody. The error statuses every route can answer are implied, so a
 * route cannot forget them: 400 when it takes any input, 404 when its path has parameters, 401,
 * 403 and 429 unless it is open, 5XX always; `errors` adds the route's own (406, 409, 503, ...).
 *
 *   app.get('/v1/things/:id', { schema: routeDoc({ operationId: 'getThing', summary: '...',
 *     tags: ['things'], params, responses: { 200: THING_SCHEMA } }) }, handler);
 *
 * A success answer is a JSON schema of the JSON body, or a whole response object
 * (`{ description, content: { <media type>: { schema } } }`) for other media types or several.
 * Every parameter's schema must carry a description: it becomes the parameter's documentation.
 */
import type { FastifySchema } from 'fastify';
import { type ErrorStatus, errorResponses } from './error-responses.js';
import './fields.js';

/** The security requirement of routes that need an API key (the `apiKey` scheme of docs.ts). */
export const API_KEY_SECURITY = [{ apiKey: [] as string[] }] as const;

export interface RouteDoc {
  /** Unique in the service, camelCase: generated clients name their functions after it. */
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** `open`: no key needed (health, docs, the postback receiver). Default: an API key. */
  auth?: 'apiKey' | 'open';
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  headers?: unknown;
  /** Success answers by status. */
  responses: Readonly<Record<number, unknown>>;
  /** Error statuses besides the implied ones. */
  errors?: readonly ErrorStatus[];
}

function isResponseObject(value: unknown): value is { description: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    'description' in value &&
    ('content' in value || !('type' in value || '$ref' in value))
  );
}

function successResponse(status: number, value: unknown): unknown {
  if (isResponseObject(value)) return value;
  const description = status === 201 ? 'Created' : status === 202 ? 'Accepted' : 'OK';
  return { description, content: { 'application/json': { schema: value } } };
}

/** The error statuses of a route: the implied ones and its own, in status order. */
export function errorStatusesOf(doc: RouteDoc): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(doc.errors ?? []);
  const hasInput = [doc.params, doc.querystring, doc.body, doc.headers].some((part) => part !== undefined);
  if (hasInput) statuses.add(400);
  if (doc.params !== undefined) statuses.add(404);
  if (doc.auth !== 'open') {
    statuses.add(401);
    statuses.add(403);
    statuses.add(429);
  }
  statuses.add('5XX');
  const rank = (s: ErrorStatus) => (s === '5XX' ? 500 : s);
  return [...statuses].sort((a, b) => rank(a) - rank(b));
}

export function routeDoc(doc: RouteDoc): FastifySchema {
  const response: Record<string, unknown> = {};
  for (const [status, value] of Object.entries(doc.responses)) {
    response[status] = successResponse(Number(status), value);
  }
  Object.assign(response, errorResponses(errorStatusesOf(doc)));
  const schema: FastifySchema = {
    operationId: doc.operationId,
    summary: doc.summary,
    tags: doc.tags,
    response,
  };
  if (doc.description !== undefined) schema.description = doc.description;
  if (doc.auth !== 'open') schema.security = API_KEY_SECURITY;
  if (doc.params !== undefined) schema.params = doc.params;
  if (doc.querystring !== undefined) schema.querystring = doc.querystring;
  if (doc.body !== undefined) schema.body = doc.body;
  if (doc.headers !== undefined) schema.headers = doc.headers;
  return schema;
}

/**
 * For routes that pass another system's JSON through (the upstream broker's records): the
 * response schema documents the answer, it must not reshape it. fastify's default serializer
 * drops fields the schema does not list and coerces types to the declared ones; this one writes
 * the value as it is. Pass as the route's `serializerCompiler`.
 */
export function asIsSerializer(): (data: unknown) => string {
  return (data) => JSON.stringify(data);
}

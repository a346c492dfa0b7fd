/**
 * Every error leaves as `{ "error": { "code", "message", "field"?, "upstream"? } }`. Validation
 * failures name the field (`body.quantity`, `querystring.interval`); nothing internal (stack, SQL
 * engine internals of other requests, secrets) is echoed.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError, isHttpError } from './http-error.js';
import { installErrorBodySchema } from './openapi/error-responses.js';
import { installSecurityHeaders } from './security-headers.js';

/**
 * Turns an error of a service's own dependency (an upstream client's error) into its HTTP error,
 * or returns undefined when the error is not of that kind.
 */
export type ErrorMapper = (error: unknown) => HttpError<string> | undefined;

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    field?: string;
    upstream?: Record<string, unknown>;
  };
}

function fieldOf(issue: ValidationIssue): string {
  const path = issue.instancePath
    .split('/')
    .filter((p) => p.length > 0)
    .join('.');
  const extra =
    typeof issue.params.missingProperty === 'string'
      ? issue.params.missingProperty
      : typeof issue.params.additionalProperty === 'string'
        ? issue.params.additionalProperty
        : '';
  return [path, extra].filter((p) => p.length > 0).join('.');
}

export function validationError(context: string, issues: readonly ValidationIssue[]): HttpError {
  const first = issues[0];
  if (!first) return new HttpError('BAD_REQUEST', `invalid ${context}`);
  const field = fieldOf(first);
  const where = field ? `${context}.${field}` : context;
  let message = first.message ?? 'is invalid';
  if (first.keyword === 'additionalProperties') message = 'is not a known field';
  if (first.keyword === 'required') message = 'is required';
  if (first.keyword === 'enum' && Array.isArray(first.params.allowedValues)) {
    message = `must be one of ${first.params.allowedValues.join(', ')}`;
  }
  return new HttpError('BAD_REQUEST', `${where} ${message}`, { field: field || context });
}

/** Any thrown value as an HTTP error: the service's own, a mapped one, a fastify one, else INTERNAL. */
export function toHttpError(error: unknown, mapper?: ErrorMapper): HttpError<string> {
  if (isHttpError(error)) return error;
  const mapped = mapper?.(error);
  if (mapped) return mapped;
  const fe = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fe.validation)) return validationError(fe.validationContext ?? 'request', fe.validation);
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 413) return new HttpError('BAD_REQUEST', 'request body too large', { status: 413 });
  if (status === 415)
    return new HttpError('BAD_REQUEST', 'unsupported content type: send application/json', {
      status: 415,
    });
  if (status >= 400 && status < 500) {
    return new HttpError('BAD_REQUEST', fe.message ?? 'invalid request', { status });
  }
  return new HttpError('INTERNAL', 'internal error', { cause: error });
}

export function errorBody(error: HttpError<string>): ErrorBody {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.field !== undefined) body.error.field = error.field;
  if (error.upstream !== undefined) body.error.upstream = { ...error.upstream };
  return body;
}

/**
 * Answers every error in the envelope; `mapper` turns a service's dependency errors into its own.
 * Installed first by every service, so it also installs the headers every response carries
 * (security-headers.ts: nosniff everywhere, a CSP and frame refusal on /docs).
 */
export function installErrorHandler(app: FastifyInstance, mapper?: ErrorMapper): void {
  installSecurityHeaders(app);
  // Routes document their error answers by reference to this schema (openapi/route-doc.ts).
  installErrorBodySchema(app);
  app.setErrorHandler((error, request, reply) => {
    const mapped = toHttpError(error, mapper);
    if (mapped.status >= 500) request.log.error({ err: error, code: mapped.code }, 'request failed');
    if (reply.sent || reply.raw.headersSent) {
      // A streamed body already started: the only honest signal left is cutting the connection.
      reply.raw.destroy(mapped);
      return;
    }
    if (mapped.retryAfterSec !== undefined) reply.header('retry-after', mapped.retryAfterSec);
    reply.status(mapped.status).type('application/json').send(errorBody(mapped));
  });
}

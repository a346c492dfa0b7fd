/**
 * Error answers of the postback routes, in the shared HTTP envelope (service-http's `errorBody`),
 * set on the plugin's own context so the routes behave the same inside any app. Every error on
 * the shared base (the receiver's PostbackError, the gateway's auth errors: 401/403/429 ...) is
 * answered as it is; fastify's own (validation, body limit, media type) become the receiver's
 * codes.
 */
import { errorBody, installErrorBodySchema, toHttpError } from '@feedpipe/service-http';
import type { FastifyError, FastifyInstance } from 'fastify';
import { PostbackError } from './errors.js';

interface ValidationIssue {
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

export function toPostbackError(error: unknown): PostbackError {
  if (error instanceof PostbackError) return error;
  const fe = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const first = fe.validation[0];
    const field = [first?.instancePath.replace(/^\//, '').replace(/\//g, '.'), first?.params.missingProperty]
      .filter((p) => typeof p === 'string' && p !== '')
      .join('.');
    const where = `${fe.validationContext ?? 'body'}${field ? `.${field}` : ''}`;
    const code = fe.validationContext === 'querystring' ? 'STREAM_BAD_FILTER' : 'POSTBACK_MALFORMED';
    return new PostbackError(code, `${where} ${first?.message ?? 'is invalid'}`, { status: 400 });
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 413) return new PostbackError('POSTBACK_TOO_LARGE', 'body too large', { status });
  if (status === 415)
    return new PostbackError('POSTBACK_UNSUPPORTED_MEDIA', 'send application/json', { status });
  if (status >= 400 && status < 500)
    return new PostbackError('POSTBACK_MALFORMED', 'invalid request', { status });
  return new PostbackError('POSTBACK_PERSIST_FAILED', 'internal error', { status: 500, cause: error });
}

export function installErrorHandler(ctx: FastifyInstance): void {
  // The routes document their errors as the shared ErrorBody, also when mounted in an app of their own.
  installErrorBodySchema(ctx);
  ctx.setErrorHandler((error, _request, reply) => {
    const e = toHttpError(error, toPostbackError);
    if (e.status === 503) void reply.header('retry-after', String(e.retryAfterSec ?? 1));
    void reply.code(e.status).send(errorBody(e));
  });
}

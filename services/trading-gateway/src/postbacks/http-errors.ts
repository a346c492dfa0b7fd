/**
 * Error answers of the postback routes, in the shared HTTP shape `{ "error": { "code", "message" } }`,
 * set on the plugin's own context so the routes behave the same inside any app.
 *
 * Errors of the app around the plugin keep their own status and code: the gateway's auth hook runs
 * on these routes too and throws its typed error (`status` 401/403/429, `code` UNAUTHENTICATED
 * ...). Those carry `status`, not fastify's `statusCode`, and were once answered 500 here.
 */
import { installErrorBodySchema } from '@feedpipe/service-http';
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

/** A typed error of the surrounding app (an HTTP status and a stable code), answered as it is. */
function appError(error: unknown): { status: number; code: string; message: string } | undefined {
  if (!(error instanceof Error) || error instanceof PostbackError) return undefined;
  const { status, code } = error as { status?: unknown; code?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 599 || typeof code !== 'string')
    return undefined;
  return { status, code, message: error.message };
}

export function installErrorHandler(ctx: FastifyInstance): void {
  // The routes document their errors as the shared ErrorBody, also when mounted in an app of their own.
  installErrorBodySchema(ctx);
  ctx.setErrorHandler((error, _request, reply) => {
    const app = appError(error);
    if (app) {
      if (app.status === 503) void reply.header('retry-after', '1');
      void reply.code(app.status).send({ error: { code: app.code, message: app.message } });
      return;
    }
    const e = toPostbackError(error);
    if (e.status === 503) void reply.header('retry-after', '1');
    void reply.code(e.status).send({ error: { code: e.code, message: e.message } });
  });
}

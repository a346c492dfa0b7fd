/**
 * The fastify options that give a service's server the project's limits (service-kit's
 * http-server-limits.ts: idle, head, request and keep-alive timeouts, the process's connection
 * cap, the body limit). fastify applies its own timeouts only to a server it creates, so the
 * server is made by `createLimitedServer` through `serverFactory`, and every setting is set there,
 * once, for the APIs and the ops endpoints alike.
 */
import { createLimitedServer, type HttpServerLimits } from '@feedpipe/service-kit';
import type { FastifyReply, FastifyRequest, FastifyServerFactory } from 'fastify';
import { errorBody } from './error-handler.js';
import { HttpError } from './http-error.js';

export interface HttpServerOptions {
  serverFactory: FastifyServerFactory;
  bodyLimit: number;
  frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => void;
}

/**
 * fastify's own refusals before any route or hook runs (a URL that cannot be decoded): answered in
 * the envelope, without echoing the URL (caller text) as fastify's default answer does.
 */
function frameworkErrors(_error: Error, _request: FastifyRequest, reply: FastifyReply): void {
  reply
    .code(400)
    .header('x-content-type-options', 'nosniff')
    .type('application/json')
    .send(errorBody(new HttpError('BAD_REQUEST', 'the request URL is not valid')));
}

/** Spread into `Fastify({...})`; a service may raise `bodyLimit` after it for its own routes. */
export function httpServerOptions(limits: HttpServerLimits): HttpServerOptions {
  return {
    serverFactory: (handler) => createLimitedServer(handler, limits),
    bodyLimit: limits.bodyLimitBytes,
    frameworkErrors,
  };
}

/**
 * The fastify options that give a service's server the project's limits (service-kit's
 * http-server-limits.ts: idle, head, request and keep-alive timeouts, the process's connection
 * cap, the body limit). fastify applies its own timeouts only to a server it creates, so the
 * server is made by `createLimitedServer` through `serverFactory`, and every setting is set there,
 * once, for the APIs and the ops endpoints alike.
 */
import { createLimitedServer, type HttpServerLimits } from '@feedpipe/service-kit';
import type { FastifyServerFactory } from 'fastify';

export interface HttpServerOptions {
  serverFactory: FastifyServerFactory;
  bodyLimit: number;
}

/** Spread into `Fastify({...})`; a service may raise `bodyLimit` after it for its own routes. */
export function httpServerOptions(limits: HttpServerLimits): HttpServerOptions {
  return {
    serverFactory: (handler) => createLimitedServer(handler, limits),
    bodyLimit: limits.bodyLimitBytes,
  };
}

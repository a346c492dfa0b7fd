/**
 * Admission of requests that read the store for a caller: every authenticated read route under
 * /v1 (analytics, status, SQL), except the live stream, which has its own per-client limits and
 * does not touch the store. A key may have `maxConcurrentPerKey` of them in flight; one more is
 * refused at once with 429 RATE_LIMITED and Retry-After, before it reaches the store. The slot is
 * held until the response is closed, so results still being read by a slow client count.
 *
 * The slot is taken once the request is in (preHandler: body read and validated), not when its
 * head arrives: a body that trickles in a byte every few seconds is not a query yet, and taken at
 * the head it held one of its key's slots until the request deadline (bench:flood's slow bodies
 * left the read key's own /v1/sql answering 429 for 30 s). The request deadline bounds the upload.
 */

import type { KeyConcurrency } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import { QueryApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set at registration for routes that read the store on a caller's behalf. */
    storeQuery?: boolean;
  }
}

const NOT_STORE_QUERIES = new Set(['/v1/stream']);

/** Must be installed after the auth hook (it needs the key) and before the routes are registered. */
export function installQueryAdmission(app: FastifyInstance, slots: KeyConcurrency): void {
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { scope?: string; storeQuery?: boolean };
    const scope = config.scope ?? 'read';
    if (config.storeQuery !== undefined) return;
    const storeQuery = scope === 'read' && route.url.startsWith('/v1/') && !NOT_STORE_QUERIES.has(route.url);
    route.config = { ...config, storeQuery } as typeof route.config;
  });
  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config?.storeQuery || request.apiKey === undefined) return;
    const release = slots.tryAcquire(request.apiKey.keyId);
    if (release === undefined) {
      throw new QueryApiError(
        'RATE_LIMITED',
        `this key already has ${slots.maxPerKey} queries in flight (the most allowed at once); retry when one has finished`,
        { retryable: true, retryAfterSec: 1 },
      );
    }
    // 'close' comes once the response is finished or the connection is gone, whichever is first.
    reply.raw.once('close', release);
  });
}

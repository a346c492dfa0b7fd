/**
 * GET /v1/stream: Server-Sent Events of live feed records for chosen instruments. Each client has a
 * bounded queue: while its socket is congested, events queue up to `maxQueuedEvents`, after which
 * new ones are dropped, counted, and announced with an `event: dropped` line once it drains, so a
 * slow notebook never grows the server's memory or slows other clients. Each API key may hold at
 * most `stream.maxClientsPerKey` of the `stream.maxClients` streams (429 beyond its share); a
 * revoked key's streams end with an `event: end`.
 */

import { TOPIC_KINDS, type TopicKind } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest, QueryApiError } from '../errors.js';
import type { LiveClient, LiveHub } from './live-hub.js';

function parseIds(value: string, max: number): Set<number> {
  const ids = new Set<number>();
  for (const part of value.split(',')) {
    const id = Number(part.trim());
    if (!Number.isInteger(id) || id < 0 || id > 4_294_967_295) {
      throw badRequest('securityIds', 'must be a comma-separated list of security ids');
    }
    ids.add(id);
  }
  if (ids.size > max) throw badRequest('securityIds', `at most ${max} instruments per stream`);
  return ids;
}

function parseKinds(value: string): Set<TopicKind> {
  const kinds = new Set<TopicKind>();
  for (const part of value.split(',')) {
    const kind = part.trim() as TopicKind;
    if (!TOPIC_KINDS.includes(kind))
      throw badRequest('kinds', `must be a comma-separated list of ${TOPIC_KINDS.join(', ')}`);
    kinds.add(kind);
  }
  return kinds;
}

/** The stream route's OpenAPI description and query validation. */
const STREAM_ROUTE = {
  schema: routeDoc({
    operationId: 'streamLive',
    tags: ['live'],
    summary: 'Live feed records as Server-Sent Events (from Kafka)',
    description:
      "Events: `ready` once the stream is attached, then `trades`, `ohlc`, `reference`, `status` with the decoded record JSON plus receivedAt (epoch microseconds); `dropped` with a count when the client read too slowly. 429 beyond the key's share of streams, 503 without Kafka.",
    responses: {
      200: {
        description:
          'A text/event-stream that runs until the client leaves or the key is revoked (event `end`)',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
    },
    errors: [503],
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: ['securityIds'],
      properties: {
        securityIds: {
          type: 'string',
          minLength: 1,
          maxLength: 20_000,
          description: 'comma-separated security ids',
        },
        kinds: {
          type: 'string',
          default: 'trades',
          description: `comma-separated: ${TOPIC_KINDS.join(', ')}`,
        },
      },
    },
  }),
};

export function registerStreamRoutes(app: FastifyInstance, ctx: ApiContext, hub: LiveHub): void {
  const limits = ctx.config.stream;
  app.get<{ Querystring: { securityIds: string; kinds: string } }>(
    '/v1/stream',
    STREAM_ROUTE,
    async (request, reply) => {
      const securityIds = parseIds(request.query.securityIds, limits.maxInstruments);
      const kinds = parseKinds(request.query.kinds);
      if (!hub.enabled)
        throw new QueryApiError('STREAM_UNAVAILABLE', 'the live stream needs Kafka brokers (KAFKA_BROKERS)');
      // The auth hook set the key (this route needs `read`); the hub counts its share of the slots.
      const keyId = request.apiKey?.keyId ?? '';
      const res = reply.raw;
      let queue: string[] = [];
      // Events queue until the headers are out; then the queue drains like after a 'drain'.
      let congested = true;
      let dropped = 0;
      let closed = false;
      const write = (text: string): void => {
        if (closed) return;
        if (congested) {
          if (queue.length >= limits.maxQueuedEvents) {
            dropped += 1;
            ctx.metrics.streamDropped.inc();
          } else queue.push(text);
          return;
        }
        if (!res.write(text)) congested = true;
      };
      const flush = (): void => {
        congested = false;
        const pending = queue;
        queue = [];
        if (dropped > 0) {
          pending.push(`event: dropped\ndata: {"count":${dropped}}\n\n`);
          dropped = 0;
        }
        for (const text of pending) write(text);
      };
      res.on('drain', flush);
      let heartbeat: NodeJS.Timeout | undefined;
      let revokedWhileStarting: string | undefined;
      const close = (): void => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        hub.remove(client);
        ctx.metrics.streamClients.set(hub.clients);
      };
      const client: LiveClient = {
        securityIds,
        kinds,
        keyId,
        deliver: (kind, data) => write(`event: ${kind}\ndata: ${data}\n\n`),
        end: (reason) => {
          if (closed) return;
          if (!res.headersSent) {
            // Revoked before the stream was attached: refuse it once add() returns.
            revokedWhileStarting = reason;
            return;
          }
          res.write(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
          close();
          res.end();
        },
      };
      await hub.add(client);
      if (revokedWhileStarting !== undefined) {
        hub.remove(client);
        throw new QueryApiError('UNAUTHENTICATED', 'the API key is unknown or revoked');
      }
      ctx.metrics.streamClients.set(hub.clients);
      reply.hijack();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(`event: ready\ndata: {"securityIds":${JSON.stringify([...securityIds])}}\n\n`);
      flush();
      heartbeat = setInterval(() => write(': keep-alive\n\n'), limits.heartbeatMs);
      request.raw.on('close', close);
      res.on('close', close);
    },
  );
}

/**
 * Following order updates: `GET /order-updates/stream` is a Server-Sent Events stream of every
 * recorded update (event `order`, id = receiver sequence, data = the `orders.updates` value),
 * filtered by `orderId`, `securityId` and/or `clientId`; a comment line every 15 s keeps proxies
 * from closing it. `GET /order-updates` reads the recorded history with the same filters, per
 * order in transition order. `POST /order-updates/reconcile` runs reconciliation now.
 * A client that falls `streamBufferBytes` behind is disconnected instead of buffered without end.
 */
import type { FastifyInstance } from 'fastify';
import { PostbackError } from './errors.js';
import { readOrderEvents } from './events-table.js';
import { installErrorHandler } from './http-errors.js';
import type { ResolvedReceiverOptions } from './options.js';
import { toWire } from './order-event.js';
import type { ReconcileResult } from './reconcile.js';
import type { UpdateFilter, UpdateHub } from './update-hub.js';

const HEARTBEAT_MS = 15_000;
/** Order updates are the desk's business: the gateway's `trade` scope reads and reconciles them. */
const TRADE_ROUTE = { scope: 'trade' } as Record<string, unknown>;

const filterValue = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' } as const;
const FILTER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { orderId: filterValue, securityId: filterValue, clientId: filterValue },
} as const;
const HISTORY_SCHEMA = {
  ...FILTER_SCHEMA,
  properties: { ...FILTER_SCHEMA.properties, limit: { type: 'integer', minimum: 1, maximum: 10_000 } },
} as const;

export function registerStreamRoutes(
  app: FastifyInstance,
  options: ResolvedReceiverOptions,
  hub: UpdateHub,
  reconcile: () => Promise<ReconcileResult>,
): void {
  void app.register(async (ctx) => {
    installErrorHandler(ctx);
    ctx.get(
      '/order-updates/stream',
      { config: TRADE_ROUTE, schema: { querystring: FILTER_SCHEMA } },
      (request, reply) => {
        const filter = request.query as UpdateFilter;
        const raw = reply.raw;
        let heartbeat: ReturnType<typeof setInterval> | undefined;
        const end = () => {
          if (heartbeat) clearInterval(heartbeat);
          raw.end();
        };
        const unsubscribe = hub.subscribe(
          filter,
          (event, seq) => {
            if (raw.writableLength > options.streamBufferBytes) return false;
            raw.write(`id: ${seq}\nevent: order\ndata: ${JSON.stringify(toWire(event, seq))}\n\n`);
            return true;
          },
          end,
        );
        if (!unsubscribe) {
          throw new PostbackError('STREAM_FULL', 'too many stream clients; try again later', { status: 503 });
        }
        reply.hijack();
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        raw.write(': connected\n\n');
        heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
        heartbeat.unref();
        raw.on('close', () => {
          if (heartbeat) clearInterval(heartbeat);
          unsubscribe();
        });
      },
    );

    ctx.get(
      '/order-updates',
      { config: TRADE_ROUTE, schema: { querystring: HISTORY_SCHEMA } },
      async (request) => {
        const q = request.query as UpdateFilter & { limit?: number };
        return { events: await readOrderEvents(options.store.internal, options.table, q) };
      },
    );

    ctx.post('/order-updates/reconcile', { config: TRADE_ROUTE }, async () => reconcile());
  });
}

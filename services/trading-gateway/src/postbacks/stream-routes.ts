/**
 * Following order updates: `GET /order-updates/stream` is a Server-Sent Events stream of every
 * recorded update (event `order`, id = receiver sequence, data = the `orders.updates` value),
 * filtered by `orderId`, `securityId` and/or `clientId`; a comment line every 15 s keeps proxies
 * from closing it. `GET /order-updates` reads the recorded history with the same filters, per
 * order in transition order. `POST /order-updates/reconcile` runs reconciliation now.
 * A client that falls `streamBufferBytes` behind is disconnected instead of buffered without end.
 * One key holds at most `maxStreamClientsPerKey` of the `maxStreamClients` streams (429
 * STREAM_KEY_FULL past it), so a key cannot lock the others out of live updates. With
 * `visibility` (the gateway), a key's stream and history hold its own orders' updates only.
 */
import { asIsSerializer, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PostbackError } from './errors.js';
import { readOrderEvents } from './events-table.js';
import { installErrorHandler } from './http-errors.js';
import type { ResolvedReceiverOptions } from './options.js';
import { type OrderEvent, toWire } from './order-event.js';
import type { ReconcileResult } from './reconcile.js';
import type { UpdateFilter, UpdateHub } from './update-hub.js';
import { ownOrdersOnly, visibleEvents } from './visibility.js';

const HEARTBEAT_MS = 15_000;
/** Order updates are the desk's business: the gateway's `trade` scope reads and reconciles them. */
const TRADE_ROUTE = { scope: 'trade' } as Record<string, unknown>;

const filterValue = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' } as const;
const FILTER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    orderId: { ...filterValue, description: 'only updates of this order' },
    securityId: { ...filterValue, description: 'only updates of this instrument' },
    clientId: { ...filterValue, description: 'only updates of this client id' },
  },
} as const;
const HISTORY_SCHEMA = {
  ...FILTER_SCHEMA,
  properties: {
    ...FILTER_SCHEMA.properties,
    limit: { type: 'integer', minimum: 1, maximum: 10_000, description: 'updates in the answer at most' },
  },
} as const;

const ORDER_EVENT = {
  title: 'StoredOrderEvent',
  type: 'object',
  additionalProperties: true,
  required: ['orderId', 'eventKey', 'kind', 'status'],
  properties: {
    orderId: { type: 'string' },
    eventKey: { type: 'string', description: 'identity of the update (duplicates share it)' },
    kind: { type: 'string' },
    clientId: { type: 'string' },
    status: { type: 'string' },
    securityId: { type: 'string' },
    filledQty: { type: 'number' },
    remainingQty: { type: 'number' },
    quantity: { type: 'number' },
    price: { type: 'number' },
    averagePrice: { type: 'number' },
    updateTime: { type: 'string' },
    source: { type: 'string', description: 'postback or reconcile' },
    receivedAt: { type: 'string' },
    payload: { type: 'object', additionalProperties: true, description: 'the update as the service sent it' },
  },
} as const;

const RECONCILE_RESULT = {
  title: 'ReconcileResult',
  type: 'object',
  required: ['orders', 'rebuilt', 'added'],
  properties: {
    orders: { type: 'integer', description: 'orders read (regular and US)' },
    rebuilt: { type: 'integer', description: 'transitions rebuilt' },
    added: { type: 'integer', description: 'transitions that were missing and are now recorded' },
  },
} as const;

const tags = ['order updates'];

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
      {
        config: TRADE_ROUTE,
        schema: routeDoc({
          operationId: 'streamOrderUpdates',
          tags,
          summary: 'Order updates as Server-Sent Events (event `order`, id = receiver sequence)',
          querystring: FILTER_SCHEMA,
          responses: {
            200: {
              description: 'A text/event-stream of `orders.updates` values until the client leaves',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
          },
          errors: [429, 503],
        }),
      },
      streamHandler(options, hub),
    );

    ctx.get(
      '/order-updates',
      {
        config: TRADE_ROUTE,
        serializerCompiler: asIsSerializer,
        schema: routeDoc({
          operationId: 'listOrderUpdates',
          tags,
          summary: 'Recorded order updates, per order in transition order',
          querystring: HISTORY_SCHEMA,
          responses: {
            200: {
              title: 'OrderUpdates',
              type: 'object',
              required: ['events'],
              properties: { events: { type: 'array', items: ORDER_EVENT } },
            },
          },
        }),
      },
      async (request) => {
        const q = request.query as UpdateFilter & { limit?: number };
        const events = await readOrderEvents(options.store.internal, options.table, q);
        // Filtered after the limit: a key may get fewer than `limit` updates, never another key's.
        return {
          events: await visibleEvents(options.visibility?.restrictTo(request), options.visibility, events),
        };
      },
    );

    ctx.post(
      '/order-updates/reconcile',
      {
        config: TRADE_ROUTE,
        schema: routeDoc({
          operationId: 'reconcileOrders',
          tags,
          summary: "Reconcile now: rebuild missing transitions from the service's order books",
          responses: { 200: RECONCILE_RESULT },
          errors: [409, 503],
        }),
      },
      async () => reconcile(),
    );
  });
}

/** The SSE handler: subscribes the client (its key's share, its orders only), then hijacks the reply. */
function streamHandler(
  options: ResolvedReceiverOptions,
  hub: UpdateHub,
): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const filter = request.query as UpdateFilter;
    const raw = reply.raw;
    let heartbeat: ReturnType<typeof setInterval> | undefined;
    const end = () => {
      if (heartbeat) clearInterval(heartbeat);
      raw.end();
    };
    const write = (event: OrderEvent, seq: number) => {
      if (!raw.destroyed)
        raw.write(`id: ${seq}\nevent: order\ndata: ${JSON.stringify(toWire(event, seq))}\n\n`);
    };
    // A key sees its own orders' updates only (a supervisor, or a receiver without keys: all).
    const ownKey = options.visibility?.restrictTo(request);
    const deliver =
      ownKey === undefined || !options.visibility
        ? (event: OrderEvent, seq: number) => {
            write(event, seq);
            return true;
          }
        : ownOrdersOnly(ownKey, options.visibility, write, (error) => raw.destroy(error as Error));
    const unsubscribe = hub.subscribe(
      filter,
      (event, seq) => raw.writableLength <= options.streamBufferBytes && deliver(event, seq),
      end,
      request.apiKey?.keyId ?? '',
    );
    if (unsubscribe === 'key-full') {
      throw new PostbackError(
        'STREAM_KEY_FULL',
        `this key already has ${options.maxStreamClientsPerKey} order-update streams open (the most one key may hold); close one first`,
        { status: 429 },
      );
    }
    if (unsubscribe === 'full') {
      throw new PostbackError('STREAM_FULL', 'too many stream clients; try again later', { status: 503 });
    }
    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      // Written past fastify's hooks (hijacked), so the gateway's nosniff header is set here.
      'x-content-type-options': 'nosniff',
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
  };
}

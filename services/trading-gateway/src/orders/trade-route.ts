/**
 * Registration helper for execution routes: `trade` scope, bodies validated without coercion, 503
 * without a broker, replay header.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { TradingGatewayError } from '../errors.js';
import type { OrderDesk, OrderResult } from './order-desk.js';
import { ORDER_ID_PARAMS } from './order-schemas.js';
import { tradeValidatorCompiler } from './strict-validation.js';

export interface TradeDeps {
  broker: BrokerClient | undefined;
  desk: OrderDesk | undefined;
}

export interface TradeCall {
  request: FastifyRequest;
  broker: BrokerClient;
  desk: OrderDesk;
  keyId: string;
}

const TRADE_SECURITY = [{ apiKey: [] }];

export function tradeRoute(
  app: FastifyInstance,
  deps: TradeDeps,
  method: HTTPMethods,
  url: string,
  schema: FastifySchema & { summary: string; tags: string[] },
  handler: (call: TradeCall) => Promise<unknown>,
): void {
  app.route({
    method,
    url,
    config: { scope: 'trade' },
    schema: { ...schema, security: TRADE_SECURITY },
    // Bodies exactly as typed: no "5" for 5, no true for 1, no null for 0 (strict-validation.ts).
    validatorCompiler: tradeValidatorCompiler(app),
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      if (!deps.broker || !deps.desk) {
        throw new TradingGatewayError(
          'TRADING_DISABLED',
          'order routes are disabled: this gateway runs without a broker client',
        );
      }
      const result = await handler({
        request,
        broker: deps.broker,
        desk: deps.desk,
        keyId: request.apiKey?.keyId ?? '',
      });
      if (isOrderResult(result)) {
        if (result.replayed) reply.header('x-idempotent-replay', 'true');
        return result.body;
      }
      return result ?? { status: 'accepted' };
    },
  });
}

function isOrderResult(value: unknown): value is OrderResult {
  return typeof value === 'object' && value !== null && 'replayed' in value && 'body' in value;
}

/** What modifying or cancelling one order by id has in common across order kinds. */
interface ByIdSpec {
  url: string;
  tags: string[];
  summary: string;
  /** Audit action, e.g. orders.cancel. */
  action: string;
}

type IdParams = { orderId: string };

/**
 * PUT <url>/:orderId: a modification, checked pre-trade when it sets both quantity and price,
 * refused while the kill switch is active, audited.
 */
export function modifyOrderRoute<B extends { quantity?: number | undefined; price?: number | undefined }>(
  app: FastifyInstance,
  deps: TradeDeps,
  spec: ByIdSpec & {
    body: unknown;
    send: (broker: BrokerClient, orderId: string, body: B) => Promise<unknown>;
  },
): void {
  tradeRoute(
    app,
    deps,
    'PUT',
    spec.url,
    { tags: spec.tags, summary: spec.summary, params: ORDER_ID_PARAMS, body: spec.body },
    ({ request, broker, desk, keyId }) => {
      const { orderId } = request.params as IdParams;
      const body = request.body as B;
      return desk.execute({
        action: spec.action,
        keyId,
        request: body,
        summary: { ...body, orderId },
        checks:
          body.quantity !== undefined && body.price ? [{ quantity: body.quantity, price: body.price }] : [],
        killSwitch: true,
        send: () => spec.send(broker, orderId, body),
      });
    },
  );
}

/** DELETE <url>/:orderId: a cancel, audited; allowed under the kill switch (it reduces risk). */
export function cancelOrderRoute(
  app: FastifyInstance,
  deps: TradeDeps,
  spec: ByIdSpec & { send: (broker: BrokerClient, orderId: string) => Promise<unknown> },
): void {
  tradeRoute(
    app,
    deps,
    'DELETE',
    spec.url,
    { tags: spec.tags, summary: spec.summary, params: ORDER_ID_PARAMS },
    ({ request, broker, desk, keyId }) => {
      const { orderId } = request.params as IdParams;
      return desk.execute({
        action: spec.action,
        keyId,
        request: { orderId },
        summary: { orderId },
        send: () => spec.send(broker, orderId),
      });
    },
  );
}

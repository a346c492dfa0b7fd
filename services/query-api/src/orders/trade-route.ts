/** Registration helper for execution routes: `trade` scope, 503 without a broker, replay header. */
import type { BrokerClient } from '@feedpipe/broker-api';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { QueryApiError } from '../errors.js';
import type { OrderDesk, OrderResult } from './order-desk.js';

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
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      if (!deps.broker || !deps.desk) {
        throw new QueryApiError(
          'TRADING_DISABLED',
          'order routes are disabled: this API runs without a broker client',
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

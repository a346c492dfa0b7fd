/**
 * Registration helper for execution routes: `trade` scope, bodies validated without coercion, 503
 * without a broker, replay header, and the route's OpenAPI entry (routeDoc). Answers are the
 * service's records passed through, written as they are (the response schema documents them).
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { asIsSerializer, type ErrorStatus, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
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

/** Reads: 503 without a broker client (TRADING_DISABLED); 502 from the service is in 5XX. */
export const READ_ERRORS: readonly ErrorStatus[] = [503];
/** Placements and modifications: also the kill switch and duplicates (409) and pre-trade checks (422). */
export const PLACE_ERRORS: readonly ErrorStatus[] = [409, 422, 503];
/** Cancels and risk-reducing calls: allowed under the kill switch; 409 for a duplicate in flight. */
export const CANCEL_ERRORS: readonly ErrorStatus[] = [409, 503];
/** The audit trail: 503 when the audit table cannot be read. */
export const AUDIT_ERRORS: readonly ErrorStatus[] = [503];

/** What the OpenAPI document says about a trading route. */
export interface TradeDoc {
  operationId: string;
  tags: string[];
  summary: string;
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  /** The JSON schema of the 200 answer. */
  response: unknown;
  errors: readonly ErrorStatus[];
}

export function tradeRoute(
  app: FastifyInstance,
  deps: TradeDeps,
  method: HTTPMethods,
  url: string,
  doc: TradeDoc,
  handler: (call: TradeCall) => Promise<unknown>,
): void {
  const { response, ...rest } = doc;
  app.route({
    method,
    url,
    config: { scope: 'trade' },
    schema: routeDoc({ ...rest, responses: { 200: response } }),
    serializerCompiler: asIsSerializer,
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
  operationId: string;
  tags: string[];
  summary: string;
  response: unknown;
  errors: readonly ErrorStatus[];
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
    {
      operationId: spec.operationId,
      tags: spec.tags,
      summary: spec.summary,
      params: ORDER_ID_PARAMS,
      body: spec.body,
      response: spec.response,
      errors: spec.errors,
    },
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
    {
      operationId: spec.operationId,
      tags: spec.tags,
      summary: spec.summary,
      params: ORDER_ID_PARAMS,
      response: spec.response,
      errors: spec.errors,
    },
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

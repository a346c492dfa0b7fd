/**
 * Registration of the trading routes: `trade` scope, bodies validated without coercion, 503
 * without a broker, replay header, and the route's OpenAPI entry (routeDoc). Answers are the
 * service's records passed through, written as they are (the response schema documents them).
 * The routes themselves are tables of RouteSpec values (order-routes.ts, account-routes.ts,
 * built with route-specs.ts), registered here one by one.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { asIsSerializer, type ErrorStatus, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { TradingGatewayError } from '../errors.js';
import { isSupervisor } from '../scopes.js';
import type { OrderDesk, OrderResult } from './order-desk.js';
import type { Caller } from './ownership.js';
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
  /** The key, and whether it is a supervisor (sees and acts on every key's orders). */
  caller: Caller;
}

/** Reads: 503 without a broker client (TRADING_DISABLED); 502 from the service is in 5XX. */
export const READ_ERRORS: readonly ErrorStatus[] = [503];
/** Reads of one order: also 404 for an unknown order or one of another key. */
export const READ_ONE_ERRORS: readonly ErrorStatus[] = [404, 503];
/** Placements: also the kill switch, duplicates and correlation ids of other keys (409) and pre-trade checks (422). */
export const PLACE_ERRORS: readonly ErrorStatus[] = [409, 422, 503];
/** Modifications: as placements, and 404 for an unknown order or one of another key. */
export const MODIFY_ERRORS: readonly ErrorStatus[] = [404, 409, 422, 503];
/** Cancels and risk-reducing calls: allowed under the kill switch; 409 for a duplicate in flight. */
export const CANCEL_ERRORS: readonly ErrorStatus[] = [409, 503];
/** Cancels of one order: also 404 for an unknown order or one of another key. */
export const CANCEL_ONE_ERRORS: readonly ErrorStatus[] = [404, 409, 503];
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
  /** Keys holding any of these may call the route. Default: `trade`. */
  scopes?: readonly ('trade' | 'admin')[];
}

export function tradeRoute(
  app: FastifyInstance,
  deps: TradeDeps,
  method: HTTPMethods,
  url: string,
  doc: TradeDoc,
  handler: (call: TradeCall) => Promise<unknown>,
): void {
  const { response, scopes, ...rest } = doc;
  app.route({
    method,
    url,
    config: { scope: scopes ?? 'trade' },
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
      const keyId = request.apiKey?.keyId ?? '';
      const result = await handler({
        request,
        broker: deps.broker,
        desk: deps.desk,
        keyId,
        caller: { keyId, supervisor: isSupervisor(request.apiKey?.scopes ?? []) },
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

/** One route of a table: where it is, what the document says, and what it does. */
export interface RouteSpec {
  readonly method: HTTPMethods;
  readonly url: string;
  readonly doc: TradeDoc;
  readonly handle: (call: TradeCall) => Promise<unknown>;
}

export function registerRouteSpecs(app: FastifyInstance, deps: TradeDeps, specs: readonly RouteSpec[]): void {
  for (const spec of specs) tradeRoute(app, deps, spec.method, spec.url, spec.doc, spec.handle);
}

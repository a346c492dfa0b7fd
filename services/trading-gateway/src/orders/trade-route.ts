/**
 * Registration helper for execution routes: `trade` scope, bodies validated without coercion, 503
 * without a broker, replay header, and the route's OpenAPI entry (routeDoc). Answers are the
 * service's records passed through, written as they are (the response schema documents them).
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { asIsSerializer, type ErrorStatus, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { TradingGatewayError } from '../errors.js';
import { isSupervisor } from '../scopes.js';
import type { OrderDesk, OrderResult } from './order-desk.js';
import { ORDER_ID_PARAMS } from './order-schemas.js';
import type { Caller } from './ownership.js';
import type { OrderFacts } from './pre-trade.js';
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
 * PUT <url>/:orderId: a modification of the caller's own order (404 for another key's), refused
 * while the kill switch is active, checked pre-trade against the order's resulting state (every
 * modification, whatever fields it carries: the current order is read from the service and the
 * body's fields applied to it), audited.
 */
export function modifyOrderRoute<B, C>(
  app: FastifyInstance,
  deps: TradeDeps,
  spec: ByIdSpec & {
    body: unknown;
    /** The order as the service knows it now (a 404 from the service answers 404). */
    read: (broker: BrokerClient, orderId: string) => Promise<C>;
    /** The orders the modification would leave, for the pre-trade checks. */
    resulting: (current: C, body: B) => OrderFacts[];
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
    ({ request, broker, desk, keyId, caller }) => {
      const { orderId } = request.params as IdParams;
      const body = request.body as B;
      return desk.execute({
        action: spec.action,
        keyId,
        request: body,
        summary: { ...(body as Record<string, unknown>), orderId },
        authorize: () => desk.owners.assertMayAct(caller, orderId),
        checks: async () => spec.resulting(await spec.read(broker, orderId), body),
        killSwitch: true,
        send: () => spec.send(broker, orderId, body),
      });
    },
  );
}

/**
 * DELETE <url>/:orderId: a cancel of the caller's own order (404 for another key's), audited;
 * allowed under the kill switch (it reduces risk).
 */
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
    ({ request, broker, desk, keyId, caller }) => {
      const { orderId } = request.params as IdParams;
      return desk.execute({
        action: spec.action,
        keyId,
        request: { orderId },
        summary: { orderId },
        authorize: () => desk.owners.assertMayAct(caller, orderId),
        send: () => spec.send(broker, orderId),
      });
    },
  );
}

/** GET <url>/:orderId: one order of the caller's (404 for another key's, before asking the service). */
export function readOrderRoute(
  app: FastifyInstance,
  deps: TradeDeps,
  url: string,
  doc: Omit<TradeDoc, 'errors' | 'params'> & { params?: unknown; idParam?: string },
  read: (broker: BrokerClient, orderId: string) => Promise<unknown>,
): void {
  const { idParam = 'orderId', ...rest } = doc;
  tradeRoute(
    app,
    deps,
    'GET',
    url,
    { params: ORDER_ID_PARAMS, ...rest, errors: READ_ONE_ERRORS },
    async ({ request, broker, desk, caller }) => {
      const orderId = (request.params as Record<string, string>)[idParam] ?? '';
      await desk.owners.assertMayAct(caller, orderId);
      return read(broker, orderId);
    },
  );
}

/** GET <url>: a list of orders, only those of the caller (a supervisor: all). */
export function listOrdersRoute<T>(
  app: FastifyInstance,
  deps: TradeDeps,
  url: string,
  doc: Omit<TradeDoc, 'errors'>,
  list: (broker: BrokerClient) => Promise<readonly T[]>,
  idOf: (record: T) => unknown = (r) => (r as { orderId?: unknown }).orderId,
): void {
  tradeRoute(app, deps, 'GET', url, { ...doc, errors: READ_ERRORS }, async ({ broker, desk, caller }) =>
    desk.owners.visible(caller, await list(broker), idOf),
  );
}

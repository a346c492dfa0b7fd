/**
 * The shapes a trading route takes, as functions that return a RouteSpec: a read passed through
 * from the service, a placement, an audited action, and the per-order reads, lists, modifications
 * and cancels. order-routes.ts and account-routes.ts are tables of these, so every route of a kind
 * gets the same validation, ownership, pre-trade checks, audit and error mapping.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import type { OrderSummary } from './order-desk.js';
import { ORDER_ID_PARAMS } from './order-schemas.js';
import type { OrderFacts } from './pre-trade.js';
import {
  CANCEL_ONE_ERRORS,
  MODIFY_ERRORS,
  PLACE_ERRORS,
  READ_ERRORS,
  READ_ONE_ERRORS,
  type RouteSpec,
  type TradeCall,
  type TradeDoc,
} from './trade-route.js';

/** A document without its error list (each shape sets its own). */
type Doc = Omit<TradeDoc, 'errors'>;

const paramsOf = (call: TradeCall) => call.request.params as Record<string, string>;
const orderIdOf = (call: TradeCall, idParam = 'orderId') => paramsOf(call)[idParam] ?? '';

/**
 * A read of the service passed through (a GET, or a POST of a calculation such as a margin): no
 * audit and no kill-switch check, since nothing changes at the service.
 */
export function readSpec(
  url: string,
  doc: Doc,
  read: (call: TradeCall) => Promise<unknown>,
  method: 'GET' | 'POST' = 'GET',
): RouteSpec {
  return { method, url, doc: { ...doc, errors: READ_ERRORS }, handle: read };
}

/** A read without parameters or body, as one row: url, operationId, summary, response, read. */
export type ReadRow = readonly [string, string, string, unknown, (call: TradeCall) => Promise<unknown>];

/** Reads of one tag, a row each. */
export function readRows(tags: string[], rows: readonly ReadRow[]): RouteSpec[] {
  return rows.map(([url, operationId, summary, response, read]) =>
    readSpec(url, { tags, operationId, summary, response }, read),
  );
}

/**
 * An audited request that is not an order placement (exit all, a conversion, a risk setting, an
 * eDIS step): a `request` row before the call and an `outcome` row after, optional ownership and
 * pre-trade checks first, refused under the kill switch when `killSwitch`.
 */
export function actSpec(spec: {
  method: 'POST' | 'PUT' | 'DELETE';
  url: string;
  doc: TradeDoc;
  /** Audit action, e.g. positions.convert. */
  action: string;
  /** The request as audited. Default: the body (or {}). */
  request?: (call: TradeCall) => unknown;
  summary?: (call: TradeCall) => OrderSummary;
  authorize?: (call: TradeCall) => Promise<void>;
  checks?: (call: TradeCall) => OrderFacts[] | (() => Promise<OrderFacts[]>);
  killSwitch?: boolean;
  send: (call: TradeCall) => Promise<unknown>;
}): RouteSpec {
  return {
    method: spec.method,
    url: spec.url,
    doc: spec.doc,
    handle: (call) =>
      call.desk.execute({
        action: spec.action,
        keyId: call.keyId,
        request: spec.request ? spec.request(call) : (call.request.body ?? {}),
        summary: spec.summary?.(call) ?? {},
        ...(spec.authorize ? { authorize: () => spec.authorize?.(call) ?? Promise.resolve() } : {}),
        ...(spec.checks ? { checks: spec.checks(call) } : {}),
        killSwitch: spec.killSwitch ?? false,
        send: () => spec.send(call),
      }),
  };
}

/**
 * POST <url>: a new order. Idempotent by the body's correlationId (a retry gets the first answer;
 * `lookup` asks the service after a lost answer where it can), checked pre-trade, refused under the
 * kill switch, audited; the accepted order belongs to the key.
 */
export function placeSpec<B extends { correlationId?: string | undefined }>(spec: {
  url: string;
  doc: Doc & { body: unknown };
  action: string;
  checks: (body: B) => OrderFacts[];
  /** What the audit row names. Default: the body's own fields. */
  summary?: (body: B) => OrderSummary;
  lookup?: (broker: BrokerClient, correlationId: string) => Promise<unknown>;
  /** The order ids one accepted answer created (default: its orderId or alertId). */
  orderIds?: (answer: Record<string, unknown>) => string[];
  send: (broker: BrokerClient, body: B, correlationId: string) => Promise<unknown>;
}): RouteSpec {
  return {
    method: 'POST',
    url: spec.url,
    doc: { ...spec.doc, errors: PLACE_ERRORS },
    handle: ({ request, broker, desk, keyId }) => {
      const body = request.body as B;
      const lookup = spec.lookup;
      return desk.execute({
        action: spec.action,
        keyId,
        request: body,
        summary: spec.summary?.(body) ?? (body as OrderSummary),
        placement: {
          correlationId: body.correlationId,
          ...(lookup ? { lookup: (cid: string) => lookup(broker, cid) } : {}),
        },
        ...(spec.orderIds ? { orderIds: spec.orderIds } : {}),
        checks: spec.checks(body),
        killSwitch: true,
        send: (correlationId) => spec.send(broker, body, correlationId),
      });
    },
  };
}

/** What modifying or cancelling one order by id has in common across order kinds. */
interface ByIdSpec {
  url: string;
  doc: Doc;
  /** Audit action, e.g. orders.cancel. */
  action: string;
}

/**
 * PUT <url>/:orderId: a modification of the caller's own order (404 for another key's), refused
 * while the kill switch is active, checked pre-trade against the order's resulting state (every
 * modification, whatever fields it carries: the current order is read from the service and the
 * body's fields applied to it), audited.
 */
export function modifySpec<B, C>(
  spec: ByIdSpec & {
    doc: Doc & { body: unknown };
    /** The order as the service knows it now (a 404 from the service answers 404). */
    read: (broker: BrokerClient, orderId: string) => Promise<C>;
    /** The orders the modification would leave, for the pre-trade checks. */
    resulting: (current: C, body: B) => OrderFacts[];
    send: (broker: BrokerClient, orderId: string, body: B) => Promise<unknown>;
  },
): RouteSpec {
  return actSpec({
    method: 'PUT',
    url: spec.url,
    doc: { params: ORDER_ID_PARAMS, ...spec.doc, errors: MODIFY_ERRORS },
    action: spec.action,
    summary: (call) => ({ ...(call.request.body as Record<string, unknown>), orderId: orderIdOf(call) }),
    authorize: (call) => call.desk.owners.assertMayAct(call.caller, orderIdOf(call)),
    checks: (call) => async () =>
      spec.resulting(await spec.read(call.broker, orderIdOf(call)), call.request.body as B),
    killSwitch: true,
    send: (call) => spec.send(call.broker, orderIdOf(call), call.request.body as B),
  });
}

/**
 * DELETE <url>/:orderId (or the route's own id parameter): a cancel of the caller's own order
 * (404 for another key's), audited; allowed under the kill switch (it reduces risk).
 */
export function cancelSpec(
  spec: ByIdSpec & { idParam?: string; send: (broker: BrokerClient, orderId: string) => Promise<unknown> },
): RouteSpec {
  const idParam = spec.idParam ?? 'orderId';
  return actSpec({
    method: 'DELETE',
    url: spec.url,
    doc: { params: ORDER_ID_PARAMS, ...spec.doc, errors: CANCEL_ONE_ERRORS },
    action: spec.action,
    request: (call) => ({ [idParam]: orderIdOf(call, idParam) }),
    summary: (call) => ({ orderId: orderIdOf(call, idParam) }),
    authorize: (call) => call.desk.owners.assertMayAct(call.caller, orderIdOf(call, idParam)),
    send: (call) => spec.send(call.broker, orderIdOf(call, idParam)),
  });
}

/** GET <url>/:orderId: one order of the caller's (404 for another key's, before asking the service). */
export function readOrderSpec(
  url: string,
  doc: Doc & { idParam?: string },
  read: (broker: BrokerClient, orderId: string, call: TradeCall) => Promise<unknown>,
): RouteSpec {
  const { idParam = 'orderId', ...rest } = doc;
  return {
    method: 'GET',
    url,
    doc: { params: ORDER_ID_PARAMS, ...rest, errors: READ_ONE_ERRORS },
    handle: async (call) => {
      const orderId = orderIdOf(call, idParam);
      await call.desk.owners.assertMayAct(call.caller, orderId);
      return read(call.broker, orderId, call);
    },
  };
}

/** GET <url>: records of orders, only those of the caller's orders (a supervisor: all). */
export function listOrdersSpec<T>(
  url: string,
  doc: Doc,
  list: (call: TradeCall) => Promise<readonly T[]>,
  idOf: (record: T) => unknown = (r) => (r as { orderId?: unknown }).orderId,
): RouteSpec {
  return readSpec(url, doc, async (call) => call.desk.owners.visible(call.caller, await list(call), idOf));
}

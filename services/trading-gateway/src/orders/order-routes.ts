/** Regular, super and forever orders through the typed client, with checks, idempotence and audit. */
import type {
  LegName,
  ModifyForeverOrderRequest,
  ModifyOrderRequest,
  ModifySuperOrderRequest,
  PlaceForeverOrderRequest,
  PlaceOrderRequest,
  PlaceSuperOrderRequest,
} from '@feedpipe/broker-api';
import type { FastifyInstance } from 'fastify';
import {
  CORRELATION_ID,
  MODIFY_FOREVER_ORDER,
  MODIFY_ORDER,
  MODIFY_SUPER_ORDER,
  ORDER_ID_PARAMS,
  PLACE_FOREVER_ORDER,
  PLACE_ORDER,
  PLACE_SUPER_ORDER,
} from './order-schemas.js';
import {
  CANCEL_LEG,
  FOREVER_ORDER_LIST,
  ORDER,
  ORDER_ACK,
  ORDER_LIST,
  SUPER_ORDER_LIST,
} from './response-schemas.js';
import {
  CANCEL_ERRORS,
  cancelOrderRoute,
  modifyOrderRoute,
  PLACE_ERRORS,
  READ_ERRORS,
  type TradeDeps,
  tradeRoute,
} from './trade-route.js';

type IdParams = { orderId: string };

const LEG_PARAMS = {
  type: 'object',
  properties: {
    ...ORDER_ID_PARAMS.properties,
    leg: {
      type: 'string',
      enum: ['ENTRY_LEG', 'TARGET_LEG', 'STOP_LOSS_LEG'],
      description: 'the leg to cancel; ENTRY_LEG cancels the whole order',
    },
  },
  required: ['orderId', 'leg'],
} as const;

export function registerOrderRoutes(app: FastifyInstance, deps: TradeDeps): void {
  registerPlainOrderRoutes(app, deps);
  registerSuperOrderRoutes(app, deps);
  registerForeverOrderRoutes(app, deps);
}

/** Regular orders: place, order book, read by id or correlation id, modify, cancel. */
function registerPlainOrderRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const tags = ['orders'];

  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/orders',
    {
      tags,
      operationId: 'placeOrder',
      summary: 'Place a regular order',
      response: ORDER_ACK,
      errors: PLACE_ERRORS,
      body: PLACE_ORDER,
    },
    ({ request, broker, desk, keyId }) => {
      const body = request.body as PlaceOrderRequest;
      return desk.execute({
        action: 'orders.place',
        keyId,
        request: body,
        summary: body,
        placement: { correlationId: body.correlationId, lookup: (cid) => broker.orders.byCorrelationId(cid) },
        checks: [{ securityId: body.securityId, quantity: body.quantity, price: body.price }],
        killSwitch: true,
        send: (correlationId) => broker.orders.place({ ...body, correlationId }),
      });
    },
  );

  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/orders',
    {
      tags,
      operationId: 'listOrders',
      summary: "The day's order book",
      response: ORDER_LIST,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.orders.list(),
  );

  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/orders/:orderId',
    {
      tags,
      operationId: 'getOrder',
      summary: 'One order by id',
      response: ORDER,
      errors: READ_ERRORS,
      params: ORDER_ID_PARAMS,
    },
    ({ request, broker }) => broker.orders.byId((request.params as IdParams).orderId),
  );

  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/orders/by-correlation/:correlationId',
    {
      tags,
      operationId: 'getOrderByCorrelationId',
      summary: 'One order by correlation id',
      response: ORDER,
      errors: READ_ERRORS,
      params: { type: 'object', properties: { correlationId: CORRELATION_ID }, required: ['correlationId'] },
    },
    ({ request, broker }) =>
      broker.orders.byCorrelationId((request.params as { correlationId: string }).correlationId),
  );

  modifyOrderRoute<ModifyOrderRequest>(app, deps, {
    url: '/v1/orders/:orderId',
    tags,
    operationId: 'modifyOrder',
    summary: 'Modify an order (one of its 25 modifications)',
    response: ORDER_ACK,
    errors: PLACE_ERRORS,
    body: MODIFY_ORDER,
    action: 'orders.modify',
    send: (broker, orderId, body) => broker.orders.modify(orderId, body),
  });

  cancelOrderRoute(app, deps, {
    url: '/v1/orders/:orderId',
    tags,
    operationId: 'cancelOrder',
    summary: 'Cancel an order',
    response: ORDER_ACK,
    errors: CANCEL_ERRORS,
    action: 'orders.cancel',
    send: (broker, orderId) => broker.orders.cancel(orderId),
  });
}

/** Super orders (entry with target and stop-loss legs). */
function registerSuperOrderRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const superTags = ['super orders'];
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/super-orders',
    {
      tags: superTags,
      operationId: 'placeSuperOrder',
      summary: 'Place a super order (entry with target and stop-loss legs)',
      response: ORDER_ACK,
      errors: PLACE_ERRORS,
      body: PLACE_SUPER_ORDER,
    },
    ({ request, broker, desk, keyId }) => {
      const body = request.body as PlaceSuperOrderRequest;
      return desk.execute({
        action: 'superOrders.place',
        keyId,
        request: body,
        summary: body,
        placement: { correlationId: body.correlationId },
        checks: [{ securityId: body.securityId, quantity: body.quantity, price: body.price }],
        killSwitch: true,
        send: (correlationId) => broker.superOrders.place({ ...body, correlationId }),
      });
    },
  );

  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/super-orders',
    {
      tags: superTags,
      operationId: 'listSuperOrders',
      summary: 'Super orders of the day',
      response: SUPER_ORDER_LIST,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.superOrders.list(),
  );

  tradeRoute(
    app,
    deps,
    'PUT',
    '/v1/super-orders/:orderId',
    {
      tags: superTags,
      operationId: 'modifySuperOrder',
      summary: 'Modify one leg of a super order',
      response: ORDER_ACK,
      errors: PLACE_ERRORS,
      params: ORDER_ID_PARAMS,
      body: MODIFY_SUPER_ORDER,
    },
    ({ request, broker, desk, keyId }) => {
      const { orderId } = request.params as IdParams;
      const body = request.body as ModifySuperOrderRequest;
      return desk.execute({
        action: 'superOrders.modify',
        keyId,
        request: body,
        summary: { ...body, orderId },
        checks:
          body.quantity !== undefined && body.price ? [{ quantity: body.quantity, price: body.price }] : [],
        killSwitch: true,
        send: () => broker.superOrders.modify(orderId, body),
      });
    },
  );

  tradeRoute(
    app,
    deps,
    'DELETE',
    '/v1/super-orders/:orderId/:leg',
    {
      tags: superTags,
      operationId: 'cancelSuperOrderLeg',
      summary: 'Cancel one leg of a super order (ENTRY_LEG cancels the whole order)',
      response: CANCEL_LEG,
      errors: CANCEL_ERRORS,
      params: LEG_PARAMS,
    },
    ({ request, broker, desk, keyId }) => {
      const { orderId, leg } = request.params as IdParams & { leg: LegName };
      return desk.execute({
        action: 'superOrders.cancel',
        keyId,
        request: { orderId, leg },
        summary: { orderId },
        send: () => broker.superOrders.cancelLeg(orderId, leg),
      });
    },
  );
}

/** Forever (GTT) orders. */
function registerForeverOrderRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const foreverTags = ['forever orders'];
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/forever-orders',
    {
      tags: foreverTags,
      operationId: 'placeForeverOrder',
      summary: 'Place a forever order (SINGLE or OCO)',
      response: ORDER_ACK,
      errors: PLACE_ERRORS,
      body: PLACE_FOREVER_ORDER,
    },
    ({ request, broker, desk, keyId }) => {
      const body = request.body as PlaceForeverOrderRequest;
      const checks = [{ securityId: body.securityId, quantity: body.quantity, price: body.price }];
      if (body.orderFlag === 'OCO' && body.quantity1 !== undefined) {
        checks.push({ securityId: body.securityId, quantity: body.quantity1, price: body.price1 ?? 0 });
      }
      return desk.execute({
        action: 'foreverOrders.place',
        keyId,
        request: body,
        summary: body,
        placement: { correlationId: body.correlationId },
        checks,
        killSwitch: true,
        send: (correlationId) => broker.foreverOrders.place({ ...body, correlationId }),
      });
    },
  );

  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/forever-orders',
    {
      tags: foreverTags,
      operationId: 'listForeverOrders',
      summary: 'All forever orders',
      response: FOREVER_ORDER_LIST,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.foreverOrders.list(),
  );

  modifyOrderRoute<ModifyForeverOrderRequest>(app, deps, {
    url: '/v1/forever-orders/:orderId',
    tags: foreverTags,
    operationId: 'modifyForeverOrder',
    summary: 'Modify a forever order',
    response: ORDER_ACK,
    errors: PLACE_ERRORS,
    body: MODIFY_FOREVER_ORDER,
    action: 'foreverOrders.modify',
    send: (broker, orderId, body) => broker.foreverOrders.modify(orderId, body),
  });

  cancelOrderRoute(app, deps, {
    url: '/v1/forever-orders/:orderId',
    tags: foreverTags,
    operationId: 'cancelForeverOrder',
    summary: 'Cancel a forever order',
    response: ORDER_ACK,
    errors: CANCEL_ERRORS,
    action: 'foreverOrders.cancel',
    send: (broker, orderId) => broker.foreverOrders.cancel(orderId),
  });
}

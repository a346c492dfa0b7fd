/** Regular, super and forever orders through the typed client, with checks, idempotence and audit. */
import type {
  BrokerClient,
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
import { notYours } from './ownership.js';
import {
  CANCEL_LEG,
  FOREVER_ORDER_LIST,
  ORDER,
  ORDER_ACK,
  ORDER_LIST,
  SUPER_ORDER_LIST,
} from './response-schemas.js';
import {
  type CurrentForeverOrder,
  type CurrentOrder,
  resultingForeverOrder,
  resultingOrder,
  resultingSuperOrder,
} from './resulting-order.js';
import {
  CANCEL_ONE_ERRORS,
  cancelOrderRoute,
  listOrdersRoute,
  MODIFY_ERRORS,
  modifyOrderRoute,
  PLACE_ERRORS,
  READ_ONE_ERRORS,
  readOrderRoute,
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

  listOrdersRoute(
    app,
    deps,
    '/v1/orders',
    {
      tags,
      operationId: 'listOrders',
      summary: "The day's order book: the key's own orders (a supervisor's: every order)",
      response: ORDER_LIST,
    },
    (broker) => broker.orders.list(),
  );

  readOrderRoute(
    app,
    deps,
    '/v1/orders/:orderId',
    { tags, operationId: 'getOrder', summary: 'One order of the key by id', response: ORDER },
    (broker, orderId) => broker.orders.byId(orderId),
  );

  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/orders/by-correlation/:correlationId',
    {
      tags,
      operationId: 'getOrderByCorrelationId',
      summary: 'One order of the key by its correlation id',
      response: ORDER,
      errors: READ_ONE_ERRORS,
      params: { type: 'object', properties: { correlationId: CORRELATION_ID }, required: ['correlationId'] },
    },
    async ({ request, broker, desk, caller }) => {
      const { correlationId } = request.params as { correlationId: string };
      // A correlation id is the key's own when the key sent an order with it (ids are per key).
      if (!caller.supervisor && !(await desk.keysOfCorrelation(correlationId)).includes(caller.keyId))
        throw notYours(correlationId);
      return broker.orders.byCorrelationId(correlationId);
    },
  );

  modifyOrderRoute<ModifyOrderRequest, CurrentOrder>(app, deps, {
    url: '/v1/orders/:orderId',
    tags,
    operationId: 'modifyOrder',
    summary:
      "Modify an order of the key (one of its 25 modifications); checked against the order's resulting quantity and price",
    response: ORDER_ACK,
    errors: MODIFY_ERRORS,
    body: MODIFY_ORDER,
    action: 'orders.modify',
    read: (broker, orderId) => broker.orders.byId(orderId),
    resulting: (current, body) => [resultingOrder(current, body)],
    send: (broker, orderId, body) => broker.orders.modify(orderId, body),
  });

  cancelOrderRoute(app, deps, {
    url: '/v1/orders/:orderId',
    tags,
    operationId: 'cancelOrder',
    summary: 'Cancel an order of the key',
    response: ORDER_ACK,
    errors: CANCEL_ONE_ERRORS,
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

  listOrdersRoute(
    app,
    deps,
    '/v1/super-orders',
    {
      tags: superTags,
      operationId: 'listSuperOrders',
      summary: "Super orders of the day: the key's own (a supervisor's: all)",
      response: SUPER_ORDER_LIST,
    },
    (broker) => broker.superOrders.list(),
  );

  modifyOrderRoute<ModifySuperOrderRequest, CurrentOrder>(app, deps, {
    url: '/v1/super-orders/:orderId',
    tags: superTags,
    operationId: 'modifySuperOrder',
    summary:
      "Modify one leg of a super order of the key; checked against the order's resulting quantity and prices (entry, target, stop-loss)",
    response: ORDER_ACK,
    errors: MODIFY_ERRORS,
    body: MODIFY_SUPER_ORDER,
    action: 'superOrders.modify',
    read: readSuperOrder,
    resulting: resultingSuperOrder,
    send: (broker, orderId, body) => broker.superOrders.modify(orderId, body),
  });

  tradeRoute(
    app,
    deps,
    'DELETE',
    '/v1/super-orders/:orderId/:leg',
    {
      tags: superTags,
      operationId: 'cancelSuperOrderLeg',
      summary: 'Cancel one leg of a super order of the key (ENTRY_LEG cancels the whole order)',
      response: CANCEL_LEG,
      errors: CANCEL_ONE_ERRORS,
      params: LEG_PARAMS,
    },
    ({ request, broker, desk, keyId, caller }) => {
      const { orderId, leg } = request.params as IdParams & { leg: LegName };
      return desk.execute({
        action: 'superOrders.cancel',
        keyId,
        request: { orderId, leg },
        summary: { orderId },
        authorize: () => desk.owners.assertMayAct(caller, orderId),
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

  listOrdersRoute(
    app,
    deps,
    '/v1/forever-orders',
    {
      tags: foreverTags,
      operationId: 'listForeverOrders',
      summary: "Forever orders: the key's own (a supervisor's: all)",
      response: FOREVER_ORDER_LIST,
    },
    (broker) => broker.foreverOrders.list(),
  );

  modifyOrderRoute<ModifyForeverOrderRequest, CurrentForeverOrder>(app, deps, {
    url: '/v1/forever-orders/:orderId',
    tags: foreverTags,
    operationId: 'modifyForeverOrder',
    summary:
      'Modify a forever order of the key; checked against the resulting quantity and price of each leg',
    response: ORDER_ACK,
    errors: MODIFY_ERRORS,
    body: MODIFY_FOREVER_ORDER,
    action: 'foreverOrders.modify',
    read: readForeverOrder,
    resulting: resultingForeverOrder,
    send: (broker, orderId, body) => broker.foreverOrders.modify(orderId, body),
  });

  cancelOrderRoute(app, deps, {
    url: '/v1/forever-orders/:orderId',
    tags: foreverTags,
    operationId: 'cancelForeverOrder',
    summary: 'Cancel a forever order of the key',
    response: ORDER_ACK,
    errors: CANCEL_ONE_ERRORS,
    action: 'foreverOrders.cancel',
    send: (broker, orderId) => broker.foreverOrders.cancel(orderId),
  });
}

/** A super order has no read by id at the service: it is found in the day's list. */
async function readSuperOrder(broker: BrokerClient, orderId: string): Promise<CurrentOrder> {
  const found = (await broker.superOrders.list()).find((o) => o.orderId === orderId);
  if (!found) throw notYours(orderId);
  return found;
}

/** A forever order is found in the list too; its record's fields are not typed by the spec. */
async function readForeverOrder(broker: BrokerClient, orderId: string): Promise<CurrentForeverOrder> {
  const found = (await broker.foreverOrders.list()).find((o) => o.orderId === orderId);
  if (!found) throw notYours(orderId);
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    securityId: String(found.securityId ?? ''),
    orderType: typeof found.orderType === 'string' ? found.orderType : undefined,
    orderFlag: typeof found.orderFlag === 'string' ? found.orderFlag : undefined,
    quantity: num(found.quantity),
    price: num(found.price),
    quantity1: num(found.quantity1),
    price1: num(found.price1),
  };
}

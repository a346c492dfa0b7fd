/**
 * The order routes as a table: regular orders (with slicing), super, forever, conditional and
 * US-stock orders. Each entry is one of the shapes of route-specs.ts, so placements, reads, lists,
 * modifications and cancels of every kind share their checks, ownership, audit and error mapping.
 */
import type {
  BrokerClient,
  GlobalOrder,
  LegName,
  ModifyForeverOrderRequest,
  ModifyGlobalOrderRequest,
  ModifyOrderRequest,
  ModifySuperOrderRequest,
  PlaceAlertRequest,
  PlaceForeverOrderRequest,
  PlaceGlobalOrderRequest,
  PlaceOrderRequest,
  PlaceSuperOrderRequest,
} from '@feedpipe/broker-api';
import {
  CORRELATION_ID,
  MODIFY_CONDITIONAL_ORDER,
  MODIFY_FOREVER_ORDER,
  MODIFY_ORDER,
  MODIFY_SUPER_ORDER,
  MODIFY_US_ORDER,
  ORDER_ID_PARAMS,
  PLACE_CONDITIONAL_ORDER,
  PLACE_FOREVER_ORDER,
  PLACE_ORDER,
  PLACE_SUPER_ORDER,
  PLACE_US_ORDER,
} from './order-schemas.js';
import { notYours } from './ownership.js';
import type { OrderFacts } from './pre-trade.js';
import {
  ALERT,
  ALERT_ACK,
  ALERT_LIST,
  CANCEL_LEG,
  FOREVER_ORDER_LIST,
  ORDER,
  ORDER_ACK,
  ORDER_LIST,
  SLICE_ACK,
  SUPER_ORDER_LIST,
  US_ORDER,
  US_ORDER_LIST,
} from './response-schemas.js';
import {
  type CurrentForeverOrder,
  type CurrentOrder,
  resultingForeverOrder,
  resultingOrder,
  resultingSuperOrder,
} from './resulting-order.js';
import { actSpec, cancelSpec, listOrdersSpec, modifySpec, placeSpec, readOrderSpec } from './route-specs.js';
import { CANCEL_ONE_ERRORS, MODIFY_ERRORS, READ_ONE_ERRORS, type RouteSpec } from './trade-route.js';

type AlertBody = PlaceAlertRequest & { correlationId?: string };

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

const ALERT_PARAMS = {
  type: 'object',
  properties: {
    alertId: { type: 'string', pattern: '^[0-9A-Za-z_-]{1,64}$', description: 'id of the conditional order' },
  },
  required: ['alertId'],
} as const;

const regularChecks = (b: PlaceOrderRequest): OrderFacts[] => [
  { securityId: b.securityId, quantity: b.quantity, price: b.price },
];

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

/** Both legs of a forever OCO order are checked. */
function foreverChecks(b: PlaceForeverOrderRequest): OrderFacts[] {
  const checks: OrderFacts[] = [{ securityId: b.securityId, quantity: b.quantity, price: b.price }];
  if (b.orderFlag === 'OCO' && b.quantity1 !== undefined) {
    checks.push({ securityId: b.securityId, quantity: b.quantity1, price: b.price1 ?? 0 });
  }
  return checks;
}

/** Pre-trade checks of a conditional order: one per order it would place, errors pointing at it. */
function alertOrderChecks(alert: PlaceAlertRequest): OrderFacts[] {
  return alert.orders.map((o, i) => ({
    securityId: o.securityId,
    quantity: o.quantity,
    price: o.price,
    path: `orders.${i}.`,
  }));
}

/**
 * A US order after a modification. An AMOUNT order that stays one keeps its cash amount as the
 * notional (the spec's modify body has no amount); the order's own instrument is checked, whatever
 * securityId the body names.
 */
function resultingUsOrder(current: GlobalOrder, body: ModifyGlobalOrderRequest): OrderFacts[] {
  if (body.orderType === 'AMOUNT' && body.quantity === undefined)
    return [{ securityId: current.securityId, amount: current.amount ?? 0 }];
  return [resultingOrder(current, body)];
}

const tags = ['orders'];
const REGULAR: readonly RouteSpec[] = [
  placeSpec<PlaceOrderRequest>({
    url: '/v1/orders',
    doc: {
      tags,
      operationId: 'placeOrder',
      summary: 'Place a regular order',
      response: ORDER_ACK,
      body: PLACE_ORDER,
    },
    action: 'orders.place',
    checks: regularChecks,
    lookup: (broker, cid) => broker.orders.byCorrelationId(cid),
    send: (broker, body, correlationId) => broker.orders.place({ ...body, correlationId }),
  }),
  placeSpec<PlaceOrderRequest>({
    url: '/v1/orders/slicing',
    doc: {
      tags,
      operationId: 'placeSlicedOrder',
      summary:
        "Place a regular order that the service splits into orders at the exchange's freeze quantity; checked pre-trade on the whole quantity, every slice the key's",
      response: SLICE_ACK,
      body: PLACE_ORDER,
    },
    action: 'orders.slice',
    checks: regularChecks,
    orderIds: (answer) =>
      Array.isArray(answer.orders)
        ? answer.orders.map((a) => String((a as { orderId?: unknown }).orderId ?? ''))
        : [],
    send: async (broker, body, correlationId) => ({
      orders: await broker.orders.slice({ ...body, correlationId }),
    }),
  }),
  listOrdersSpec(
    '/v1/orders',
    {
      tags,
      operationId: 'listOrders',
      summary: "The day's order book: the key's own orders (a supervisor's: every order)",
      response: ORDER_LIST,
    },
    (call) => call.broker.orders.list(),
  ),
  readOrderSpec(
    '/v1/orders/:orderId',
    { tags, operationId: 'getOrder', summary: 'One order of the key by id', response: ORDER },
    (broker, id) => broker.orders.byId(id),
  ),
  {
    method: 'GET',
    url: '/v1/orders/by-correlation/:correlationId',
    doc: {
      tags,
      operationId: 'getOrderByCorrelationId',
      summary: 'One order of the key by its correlation id',
      response: ORDER,
      errors: READ_ONE_ERRORS,
      params: { type: 'object', properties: { correlationId: CORRELATION_ID }, required: ['correlationId'] },
    },
    handle: async ({ request, broker, desk, caller }) => {
      const { correlationId } = request.params as { correlationId: string };
      // A correlation id is the key's own when the key sent an order with it (ids are per key).
      if (!caller.supervisor && !(await desk.keysOfCorrelation(correlationId)).includes(caller.keyId))
        throw notYours(correlationId);
      return broker.orders.byCorrelationId(correlationId);
    },
  },
  modifySpec<ModifyOrderRequest, CurrentOrder>({
    url: '/v1/orders/:orderId',
    doc: {
      tags,
      operationId: 'modifyOrder',
      summary:
        "Modify an order of the key (one of its 25 modifications); checked against the order's resulting quantity and price",
      response: ORDER_ACK,
      body: MODIFY_ORDER,
    },
    action: 'orders.modify',
    read: (broker, orderId) => broker.orders.byId(orderId),
    resulting: (current, body) => [resultingOrder(current, body)],
    send: (broker, orderId, body) => broker.orders.modify(orderId, body),
  }),
  cancelSpec({
    url: '/v1/orders/:orderId',
    doc: { tags, operationId: 'cancelOrder', summary: 'Cancel an order of the key', response: ORDER_ACK },
    action: 'orders.cancel',
    send: (broker, orderId) => broker.orders.cancel(orderId),
  }),
];

const superTags = ['super orders'];
const SUPER: readonly RouteSpec[] = [
  placeSpec<PlaceSuperOrderRequest>({
    url: '/v1/super-orders',
    doc: {
      tags: superTags,
      operationId: 'placeSuperOrder',
      summary: 'Place a super order (entry with target and stop-loss legs)',
      response: ORDER_ACK,
      body: PLACE_SUPER_ORDER,
    },
    action: 'superOrders.place',
    checks: (b) => [{ securityId: b.securityId, quantity: b.quantity, price: b.price }],
    send: (broker, body, correlationId) => broker.superOrders.place({ ...body, correlationId }),
  }),
  listOrdersSpec(
    '/v1/super-orders',
    {
      tags: superTags,
      operationId: 'listSuperOrders',
      summary: "Super orders of the day: the key's own (a supervisor's: all)",
      response: SUPER_ORDER_LIST,
    },
    (call) => call.broker.superOrders.list(),
  ),
  modifySpec<ModifySuperOrderRequest, CurrentOrder>({
    url: '/v1/super-orders/:orderId',
    doc: {
      tags: superTags,
      operationId: 'modifySuperOrder',
      summary:
        "Modify one leg of a super order of the key; checked against the order's resulting quantity and prices (entry, target, stop-loss)",
      response: ORDER_ACK,
      body: MODIFY_SUPER_ORDER,
    },
    action: 'superOrders.modify',
    read: readSuperOrder,
    resulting: resultingSuperOrder,
    send: (broker, orderId, body) => broker.superOrders.modify(orderId, body),
  }),
  actSpec({
    method: 'DELETE',
    url: '/v1/super-orders/:orderId/:leg',
    doc: {
      tags: superTags,
      operationId: 'cancelSuperOrderLeg',
      summary: 'Cancel one leg of a super order of the key (ENTRY_LEG cancels the whole order)',
      response: CANCEL_LEG,
      errors: CANCEL_ONE_ERRORS,
      params: LEG_PARAMS,
    },
    action: 'superOrders.cancel',
    request: (call) => call.request.params,
    summary: (call) => ({ orderId: (call.request.params as { orderId: string }).orderId }),
    authorize: (call) =>
      call.desk.owners.assertMayAct(call.caller, (call.request.params as { orderId: string }).orderId),
    send: (call) => {
      const { orderId, leg } = call.request.params as { orderId: string; leg: LegName };
      return call.broker.superOrders.cancelLeg(orderId, leg);
    },
  }),
];

const foreverTags = ['forever orders'];
const FOREVER: readonly RouteSpec[] = [
  placeSpec<PlaceForeverOrderRequest>({
    url: '/v1/forever-orders',
    doc: {
      tags: foreverTags,
      operationId: 'placeForeverOrder',
      summary: 'Place a forever order (SINGLE or OCO)',
      response: ORDER_ACK,
      body: PLACE_FOREVER_ORDER,
    },
    action: 'foreverOrders.place',
    checks: foreverChecks,
    send: (broker, body, correlationId) => broker.foreverOrders.place({ ...body, correlationId }),
  }),
  listOrdersSpec(
    '/v1/forever-orders',
    {
      tags: foreverTags,
      operationId: 'listForeverOrders',
      summary: "Forever orders: the key's own (a supervisor's: all)",
      response: FOREVER_ORDER_LIST,
    },
    (call) => call.broker.foreverOrders.list(),
  ),
  modifySpec<ModifyForeverOrderRequest, CurrentForeverOrder>({
    url: '/v1/forever-orders/:orderId',
    doc: {
      tags: foreverTags,
      operationId: 'modifyForeverOrder',
      summary:
        'Modify a forever order of the key; checked against the resulting quantity and price of each leg',
      response: ORDER_ACK,
      body: MODIFY_FOREVER_ORDER,
    },
    action: 'foreverOrders.modify',
    read: readForeverOrder,
    resulting: resultingForeverOrder,
    send: (broker, orderId, body) => broker.foreverOrders.modify(orderId, body),
  }),
  cancelSpec({
    url: '/v1/forever-orders/:orderId',
    doc: {
      tags: foreverTags,
      operationId: 'cancelForeverOrder',
      summary: 'Cancel a forever order of the key',
      response: ORDER_ACK,
    },
    action: 'foreverOrders.cancel',
    send: (broker, orderId) => broker.foreverOrders.cancel(orderId),
  }),
];

const cTags = ['conditional orders'];
const alertIdOf = (call: { request: { params: unknown } }) =>
  (call.request.params as { alertId: string }).alertId;
const CONDITIONAL: readonly RouteSpec[] = [
  placeSpec<AlertBody>({
    url: '/v1/conditional-orders',
    doc: {
      tags: cTags,
      operationId: 'placeConditionalOrder',
      summary: 'Place a conditional (alert-triggered) order of 1 to 15 orders',
      response: ALERT_ACK,
      body: PLACE_CONDITIONAL_ORDER,
    },
    action: 'conditionalOrders.place',
    summary: (b) => ({ securityId: b.condition.securityId, exchangeSegment: b.condition.exchangeSegment }),
    checks: alertOrderChecks,
    send: (broker, { correlationId: _cid, ...alert }) =>
      alert.orders.length > 1 ? broker.alerts.placeMulti(alert) : broker.alerts.place(alert),
  }),
  listOrdersSpec(
    '/v1/conditional-orders',
    {
      tags: cTags,
      operationId: 'listConditionalOrders',
      summary: "Conditional orders of the account: the key's own (a supervisor's: all)",
      response: ALERT_LIST,
    },
    (call) => call.broker.alerts.list(),
    (alert) => alert.alertId,
  ),
  readOrderSpec(
    '/v1/conditional-orders/:alertId',
    {
      tags: cTags,
      operationId: 'getConditionalOrder',
      summary: 'One conditional order of the key',
      response: ALERT,
      params: ALERT_PARAMS,
      idParam: 'alertId',
    },
    (broker, alertId) => broker.alerts.get(alertId),
  ),
  actSpec({
    method: 'PUT',
    url: '/v1/conditional-orders/:alertId',
    doc: {
      tags: cTags,
      operationId: 'modifyConditionalOrder',
      summary:
        'Replace the condition and orders of a conditional order of the key (each new order checked pre-trade: the body is the whole resulting state)',
      response: ALERT_ACK,
      errors: MODIFY_ERRORS,
      params: ALERT_PARAMS,
      body: MODIFY_CONDITIONAL_ORDER,
    },
    action: 'conditionalOrders.modify',
    summary: (call) => ({
      orderId: alertIdOf(call),
      securityId: (call.request.body as PlaceAlertRequest).condition.securityId,
    }),
    authorize: (call) => call.desk.owners.assertMayAct(call.caller, alertIdOf(call)),
    checks: (call) => alertOrderChecks(call.request.body as PlaceAlertRequest),
    killSwitch: true,
    send: (call) => call.broker.alerts.modify(alertIdOf(call), call.request.body as PlaceAlertRequest),
  }),
  cancelSpec({
    url: '/v1/conditional-orders/:alertId',
    doc: {
      tags: cTags,
      operationId: 'cancelConditionalOrder',
      summary: 'Cancel a conditional order of the key',
      response: ALERT_ACK,
      params: ALERT_PARAMS,
    },
    idParam: 'alertId',
    action: 'conditionalOrders.cancel',
    send: (broker, alertId) => broker.alerts.cancel(alertId),
  }),
];

const usTags = ['US stocks'];
const US: readonly RouteSpec[] = [
  placeSpec<PlaceGlobalOrderRequest>({
    url: '/v1/us/orders',
    doc: {
      tags: usTags,
      operationId: 'placeUsOrder',
      summary: 'Place a US-stock order (fractional or AMOUNT)',
      response: ORDER_ACK,
      body: PLACE_US_ORDER,
    },
    action: 'usOrders.place',
    summary: (b) => ({ ...b, exchangeSegment: 'INX_EQ' }),
    checks: (b) => [
      b.orderType === 'AMOUNT'
        ? { securityId: b.securityId, amount: b.amount }
        : { securityId: b.securityId, quantity: b.quantity, price: b.price },
    ],
    send: (broker, body, correlationId) => broker.globalStocks.place({ ...body, correlationId }),
  }),
  listOrdersSpec(
    '/v1/us/orders',
    {
      tags: usTags,
      operationId: 'listUsOrders',
      summary: "US-stock order book of the day: the key's own orders (a supervisor's: all)",
      response: US_ORDER_LIST,
    },
    (call) => call.broker.globalStocks.orders(),
  ),
  readOrderSpec(
    '/v1/us/orders/:orderId',
    { tags: usTags, operationId: 'getUsOrder', summary: 'One US-stock order of the key', response: US_ORDER },
    (broker, id) => broker.globalStocks.order(id),
  ),
  modifySpec<ModifyGlobalOrderRequest, GlobalOrder>({
    url: '/v1/us/orders/:orderId',
    doc: {
      tags: usTags,
      operationId: 'modifyUsOrder',
      summary: "Modify a US-stock order of the key; checked against the order's resulting quantity and price",
      response: ORDER_ACK,
      body: MODIFY_US_ORDER,
    },
    action: 'usOrders.modify',
    read: (broker, orderId) => broker.globalStocks.order(orderId),
    resulting: resultingUsOrder,
    send: (broker, orderId, body) => broker.globalStocks.modify(orderId, body),
  }),
  cancelSpec({
    url: '/v1/us/orders/:orderId',
    doc: {
      tags: usTags,
      operationId: 'cancelUsOrder',
      summary: 'Cancel a US-stock order of the key',
      response: ORDER_ACK,
    },
    action: 'usOrders.cancel',
    send: (broker, orderId) => broker.globalStocks.cancel(orderId),
  }),
];

/** Every order route of the gateway. */
export const ORDER_ROUTES: readonly RouteSpec[] = [...REGULAR, ...SUPER, ...FOREVER, ...CONDITIONAL, ...US];

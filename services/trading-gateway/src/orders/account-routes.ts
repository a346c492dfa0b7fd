/**
 * Conditional orders, US-stock orders, and the account: positions, holdings, funds, margin, kill
 * switch, P&L exit, and the order audit trail.
 */
import type {
  BrokerClient,
  GlobalOrder,
  GlobalStocksApi,
  KillSwitchStatus,
  MarginRequest,
  ModifyGlobalOrderRequest,
  PlaceAlertRequest,
  PlaceGlobalOrderRequest,
  PnlExitRequest,
} from '@feedpipe/broker-api';
import type { FastifyInstance } from 'fastify';
import { TradingGatewayError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import {
  CORRELATION_ID,
  KILL_SWITCH_REQUEST,
  MARGIN_REQUEST,
  MODIFY_CONDITIONAL_ORDER,
  MODIFY_US_ORDER,
  PLACE_CONDITIONAL_ORDER,
  PLACE_US_ORDER,
  PNL_EXIT_REQUEST,
} from './order-schemas.js';
import type { OrderFacts } from './pre-trade.js';
import {
  ACCEPTED,
  ALERT,
  ALERT_ACK,
  ALERT_LIST,
  AUDIT_ROWS,
  FUND_LIMIT,
  HOLDING_LIST,
  KILL_SWITCH,
  MARGIN,
  ORDER_ACK,
  PNL_EXIT_CONFIG,
  PNL_EXIT_RESULT,
  POSITION_LIST,
  US_FUNDS,
  US_ORDER,
  US_ORDER_LIST,
  US_RECORD_LIST,
} from './response-schemas.js';
import { resultingOrder } from './resulting-order.js';
import {
  AUDIT_ERRORS,
  CANCEL_ERRORS,
  CANCEL_ONE_ERRORS,
  cancelOrderRoute,
  listOrdersRoute,
  MODIFY_ERRORS,
  modifyOrderRoute,
  PLACE_ERRORS,
  READ_ERRORS,
  readOrderRoute,
  type TradeDeps,
  tradeRoute,
} from './trade-route.js';

type AlertParams = { alertId: string };
type AlertBody = PlaceAlertRequest & { correlationId?: string };

const ALERT_PARAMS = {
  type: 'object',
  properties: {
    alertId: { type: 'string', pattern: '^[0-9A-Za-z_-]{1,64}$', description: 'id of the conditional order' },
  },
  required: ['alertId'],
} as const;

const AUDIT_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    correlationId: CORRELATION_ID,
    limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 100, description: 'rows in the answer' },
  },
} as const;

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

/** Pre-trade checks of a conditional order: one per order it would place, errors pointing at it. */
function alertOrderChecks(alert: PlaceAlertRequest) {
  return alert.orders.map((o, i) => ({
    securityId: o.securityId,
    quantity: o.quantity,
    price: o.price,
    path: `orders.${i}.`,
  }));
}

export function registerAccountRoutes(
  app: FastifyInstance,
  deps: TradeDeps,
  audit: AuditLog | undefined,
): void {
  registerConditionalOrderRoutes(app, deps);
  registerConditionalCancelRoute(app, deps);
  registerUsOrderRoutes(app, deps);
  registerPositionRoutes(app, deps);
  registerKillSwitchRoutes(app, deps);
  registerRiskRoutes(app, deps, audit);
}

/** Conditional (alert-triggered) orders: place, list, read, modify, cancel. */
function registerConditionalOrderRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const cTags = ['conditional orders'];
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/conditional-orders',
    {
      tags: cTags,
      operationId: 'placeConditionalOrder',
      summary: 'Place a conditional (alert-triggered) order of 1 to 15 orders',
      response: ALERT_ACK,
      errors: PLACE_ERRORS,
      body: PLACE_CONDITIONAL_ORDER,
    },
    ({ request, broker, desk, keyId }) => {
      const { correlationId, ...alert } = request.body as AlertBody;
      return desk.execute({
        action: 'conditionalOrders.place',
        keyId,
        request: request.body,
        summary: { securityId: alert.condition.securityId, exchangeSegment: alert.condition.exchangeSegment },
        placement: { correlationId },
        checks: alertOrderChecks(alert),
        killSwitch: true,
        send: () => (alert.orders.length > 1 ? broker.alerts.placeMulti(alert) : broker.alerts.place(alert)),
      });
    },
  );
  listOrdersRoute(
    app,
    deps,
    '/v1/conditional-orders',
    {
      tags: cTags,
      operationId: 'listConditionalOrders',
      summary: "Conditional orders of the account: the key's own (a supervisor's: all)",
      response: ALERT_LIST,
    },
    (broker) => broker.alerts.list(),
    (alert) => alert.alertId,
  );
  readOrderRoute(
    app,
    deps,
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
  );
  tradeRoute(
    app,
    deps,
    'PUT',
    '/v1/conditional-orders/:alertId',
    {
      tags: cTags,
      operationId: 'modifyConditionalOrder',
      summary:
        'Replace the condition and orders of a conditional order of the key (each new order checked pre-trade: the body is the whole resulting state)',
      response: ALERT_ACK,
      errors: MODIFY_ERRORS,
      params: ALERT_PARAMS,
      body: MODIFY_CONDITIONAL_ORDER,
    },
    ({ request, broker, desk, keyId, caller }) => {
      const { alertId } = request.params as AlertParams;
      const alert = request.body as PlaceAlertRequest;
      return desk.execute({
        action: 'conditionalOrders.modify',
        keyId,
        request: alert,
        summary: { orderId: alertId, securityId: alert.condition.securityId },
        authorize: () => desk.owners.assertMayAct(caller, alertId),
        checks: alertOrderChecks(alert),
        killSwitch: true,
        send: () => broker.alerts.modify(alertId, alert),
      });
    },
  );
}

/** Cancelling a conditional order: allowed under the kill switch. */
function registerConditionalCancelRoute(app: FastifyInstance, deps: TradeDeps): void {
  const cTags = ['conditional orders'];
  tradeRoute(
    app,
    deps,
    'DELETE',
    '/v1/conditional-orders/:alertId',
    {
      tags: cTags,
      operationId: 'cancelConditionalOrder',
      summary: 'Cancel a conditional order of the key',
      response: ALERT_ACK,
      errors: CANCEL_ONE_ERRORS,
      params: ALERT_PARAMS,
    },
    ({ request, broker, desk, keyId, caller }) => {
      const { alertId } = request.params as AlertParams;
      return desk.execute({
        action: 'conditionalOrders.cancel',
        keyId,
        request: { alertId },
        summary: { orderId: alertId },
        authorize: () => desk.owners.assertMayAct(caller, alertId),
        send: () => broker.alerts.cancel(alertId),
      });
    },
  );
}

/** US-stock orders and the US account's reads. */
function registerUsOrderRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const usTags = ['US stocks'];
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/us/orders',
    {
      tags: usTags,
      operationId: 'placeUsOrder',
      summary: 'Place a US-stock order (fractional or AMOUNT)',
      response: ORDER_ACK,
      errors: PLACE_ERRORS,
      body: PLACE_US_ORDER,
    },
    ({ request, broker, desk, keyId }) => {
      const body = request.body as PlaceGlobalOrderRequest;
      return desk.execute({
        action: 'usOrders.place',
        keyId,
        request: body,
        summary: { ...body, exchangeSegment: 'INX_EQ' },
        placement: { correlationId: body.correlationId },
        checks: [
          body.orderType === 'AMOUNT'
            ? { securityId: body.securityId, amount: body.amount }
            : { securityId: body.securityId, quantity: body.quantity, price: body.price },
        ],
        killSwitch: true,
        send: (correlationId) => broker.globalStocks.place({ ...body, correlationId }),
      });
    },
  );
  listOrdersRoute(
    app,
    deps,
    '/v1/us/orders',
    {
      tags: usTags,
      operationId: 'listUsOrders',
      summary: "US-stock order book of the day: the key's own orders (a supervisor's: all)",
      response: US_ORDER_LIST,
    },
    (broker) => broker.globalStocks.orders(),
  );
  readOrderRoute(
    app,
    deps,
    '/v1/us/orders/:orderId',
    { tags: usTags, operationId: 'getUsOrder', summary: 'One US-stock order of the key', response: US_ORDER },
    (broker, orderId) => broker.globalStocks.order(orderId),
  );
  modifyOrderRoute<ModifyGlobalOrderRequest, GlobalOrder>(app, deps, {
    url: '/v1/us/orders/:orderId',
    tags: usTags,
    operationId: 'modifyUsOrder',
    summary: "Modify a US-stock order of the key; checked against the order's resulting quantity and price",
    response: ORDER_ACK,
    errors: MODIFY_ERRORS,
    body: MODIFY_US_ORDER,
    action: 'usOrders.modify',
    read: (broker: BrokerClient, orderId: string) => broker.globalStocks.order(orderId),
    resulting: resultingUsOrder,
    send: (broker, orderId, body) => broker.globalStocks.modify(orderId, body),
  });
  cancelOrderRoute(app, deps, {
    url: '/v1/us/orders/:orderId',
    tags: usTags,
    operationId: 'cancelUsOrder',
    summary: 'Cancel a US-stock order of the key',
    response: ORDER_ACK,
    errors: CANCEL_ONE_ERRORS,
    action: 'usOrders.cancel',
    send: (broker, orderId) => broker.globalStocks.cancel(orderId),
  });
  const usReads: [string, string, string, unknown, (g: GlobalStocksApi) => Promise<unknown>][] = [
    ['/v1/us/holdings', 'listUsHoldings', 'US-stock holdings', US_RECORD_LIST, (g) => g.holdings()],
    ['/v1/us/funds', 'getUsFundLimit', 'US-stock fund limit', US_FUNDS, (g) => g.fundLimit()],
    ['/v1/us/trades', 'listUsTrades', 'US-stock trades of the day', US_RECORD_LIST, (g) => g.trades()],
  ];
  for (const [url, operationId, summary, response, read] of usReads) {
    tradeRoute(
      app,
      deps,
      'GET',
      url,
      { operationId, tags: usTags, summary, response, errors: READ_ERRORS },
      ({ broker }) => read(broker.globalStocks),
    );
  }
}

/** Positions, holdings, funds and margin. */
function registerPositionRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const aTags = ['account'];
  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/positions',
    {
      tags: aTags,
      operationId: 'listPositions',
      summary: 'Open positions',
      response: POSITION_LIST,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.portfolio.positions(),
  );
  tradeRoute(
    app,
    deps,
    'DELETE',
    '/v1/positions',
    {
      tags: aTags,
      operationId: 'exitAllPositions',
      summary: 'Exit every position and cancel every open order of the day',
      response: ACCEPTED,
      errors: CANCEL_ERRORS,
    },
    ({ broker, desk, keyId }) =>
      desk.execute({
        action: 'positions.exitAll',
        keyId,
        request: {},
        summary: {},
        send: async () => {
          await broker.portfolio.exitAll();
          return { status: 'accepted' };
        },
      }),
  );
  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/holdings',
    {
      tags: aTags,
      operationId: 'listHoldings',
      summary: 'Holdings',
      response: HOLDING_LIST,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.portfolio.holdings(),
  );
  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/funds',
    {
      tags: aTags,
      operationId: 'getFundLimit',
      summary: 'Fund limit',
      response: FUND_LIMIT,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.funds.fundLimit(),
  );
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/margin',
    {
      tags: aTags,
      operationId: 'getMargin',
      summary: 'Margin needed for one order',
      response: MARGIN,
      errors: READ_ERRORS,
      body: MARGIN_REQUEST,
    },
    ({ request, broker }) => broker.funds.margin(request.body as MarginRequest),
  );
}

/** Kill switch, P&L exit and the order audit trail. */
function registerKillSwitchRoutes(app: FastifyInstance, deps: TradeDeps): void {
  const aTags = ['account'];
  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/kill-switch',
    {
      tags: aTags,
      operationId: 'getKillSwitch',
      summary: 'Kill-switch state',
      response: KILL_SWITCH,
      errors: READ_ERRORS,
    },
    async ({ broker, desk }) => {
      const state = await broker.funds.killSwitch();
      desk.checks.noteKillSwitch(state.killSwitchStatus === 'ACTIVATE');
      return state;
    },
  );
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/kill-switch',
    {
      tags: aTags,
      operationId: 'setKillSwitch',
      summary:
        'Activate (any trade or admin key) or deactivate (a key with the admin scope: the admin key or a supervisor) the kill switch',
      response: KILL_SWITCH,
      errors: [403, 409, 503],
      body: KILL_SWITCH_REQUEST,
      scopes: ['trade', 'admin'],
    },
    async ({ request, broker, desk, keyId }) => {
      const { status } = request.body as { status: KillSwitchStatus };
      const result = await desk.execute({
        action: 'killSwitch.set',
        keyId,
        request: { status },
        summary: {},
        // Any trade key may stop trading; only a key with the admin scope (the admin key, or a
        // supervisor: trade + admin) may restart it, so a desk's stop cannot be undone by the key
        // (or the strategy) it was meant to stop. A refused attempt is audited like any refused
        // request.
        authorize: async () => {
          const admin = (request.apiKey?.scopes ?? []).includes('admin');
          if (status === 'DEACTIVATE' && !admin) {
            throw new TradingGatewayError(
              'FORBIDDEN',
              'lifting the kill switch needs a key with the admin scope (the admin key or a supervisor); any trade key may activate it',
              { field: 'status' },
            );
          }
        },
        send: () => broker.funds.setKillSwitch(status),
      });
      desk.checks.noteKillSwitch(status === 'ACTIVATE');
      return result;
    },
  );
}

/** P&L exit and the order audit trail. */
function registerRiskRoutes(app: FastifyInstance, deps: TradeDeps, audit: AuditLog | undefined): void {
  const aTags = ['account'];
  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/pnl-exit',
    {
      tags: aTags,
      operationId: 'getPnlExit',
      summary: 'P&L-based exit configuration',
      response: PNL_EXIT_CONFIG,
      errors: READ_ERRORS,
    },
    ({ broker }) => broker.funds.pnlExit(),
  );
  tradeRoute(
    app,
    deps,
    'POST',
    '/v1/pnl-exit',
    {
      tags: aTags,
      operationId: 'setPnlExit',
      summary: 'Configure the P&L-based automatic exit',
      response: PNL_EXIT_RESULT,
      errors: PLACE_ERRORS,
      body: PNL_EXIT_REQUEST,
    },
    ({ request, broker, desk, keyId }) => {
      const body = request.body as PnlExitRequest;
      return desk.execute({
        action: 'pnlExit.set',
        keyId,
        request: body,
        summary: {},
        send: () => broker.funds.setPnlExit(body),
      });
    },
  );
  tradeRoute(
    app,
    deps,
    'GET',
    '/v1/order-audit',
    {
      tags: aTags,
      operationId: 'listOrderAudit',
      summary: "The order audit trail (newest first): the key's own rows (a supervisor's: every key's)",
      response: AUDIT_ROWS,
      errors: AUDIT_ERRORS,
      querystring: AUDIT_QUERY,
    },
    async ({ request, caller }) => {
      const q = request.query as { correlationId?: string; limit: number };
      const keyId = caller.supervisor ? undefined : caller.keyId;
      return {
        rows: audit ? await audit.list({ correlationId: q.correlationId, keyId, limit: q.limit }) : [],
      };
    },
  );
}

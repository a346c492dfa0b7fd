/**
 * Conditional orders. Body: `{ condition: {...}, orders: [ regular order fields ] }` with 1 to 15
 * orders. `/alerts/multi/orders` takes the same shape (the spec shows neither body); the simulator
 * treats "multi" as the same conditional order with several orders.
 */
import type { FastifyInstance } from 'fastify';
import {
  ALERT_OPERATORS,
  type AlertCondition,
  type AlertOrderInput,
  MAX_ALERT_ORDERS,
  MAX_ALERTS,
} from '../../accounts/alerts.js';
import { parseDay } from '../../history/calendar.js';
import { accountOf, requireStaticIp, type SimContext, tradingAccountOf } from '../context.js';
import { inputError, notFoundError, orderError } from '../errors.js';
import { asFields, optString, reqEnum, reqNumber, reqSecurityId, reqString } from '../input.js';
import { readPlaceOrder, refusal } from './order-input.js';

function readAlert(ctx: SimContext, body: unknown): { condition: AlertCondition; orders: AlertOrderInput[] } {
  const f = asFields(body);
  const c = asFields(f.condition, 'condition');
  const comparisonType = optString(c, 'comparisonType') ?? 'PRICE_WITH_VALUE';
  if (comparisonType !== 'PRICE_WITH_VALUE') {
    throw inputError('comparisonType: the simulator supports PRICE_WITH_VALUE only');
  }
  const exchangeSegment = reqEnum(c, 'exchangeSegment', ['NSE_EQ', 'BSE_EQ', 'IDX_I'] as const);
  const securityId = reqSecurityId(c);
  const inst = ctx.market.instrument(securityId);
  if (!inst || inst.exchangeSegment !== exchangeSegment)
    throw inputError('condition.securityId is not in exchangeSegment');
  const expDate = reqString(c, 'expDate', 10);
  if (parseDay(expDate) === undefined) throw inputError('condition.expDate must be YYYY-MM-DD');
  const condition: AlertCondition = {
    comparisonType: 'PRICE_WITH_VALUE',
    exchangeSegment,
    securityId: String(securityId),
    indicatorName: optString(c, 'indicatorName') ?? 'LTP',
    timeFrame: optString(c, 'timeFrame') ?? 'DAY',
    operator: reqEnum(c, 'operator', ALERT_OPERATORS),
    comparingValue: reqNumber(c, 'comparingValue'),
    expDate,
    frequency: optString(c, 'frequency') ?? 'ONCE',
    userNote: optString(c, 'userNote', 200) ?? '',
  };
  if (!Array.isArray(f.orders) || f.orders.length === 0) throw inputError('orders must be a non-empty array');
  if (f.orders.length > MAX_ALERT_ORDERS)
    throw inputError(`a conditional order holds at most ${MAX_ALERT_ORDERS} orders`);
  const orders = f.orders.map((o) => {
    const { order, instrument } = readPlaceOrder(ctx, asFields(o, 'orders[]'));
    return { order, instrument };
  });
  return { condition, orders };
}

export function registerAlertRoutes(app: FastifyInstance, ctx: SimContext): void {
  const place = async (request: import('fastify').FastifyRequest) => {
    const account = tradingAccountOf(request);
    const { condition, orders } = readAlert(ctx, request.body);
    if (account.alerts.activeCount() >= MAX_ALERTS) throw orderError('Too many active conditional orders');
    const r = account.alerts.place(
      condition,
      orders,
      ctx.market.quote(Number(condition.securityId))?.ltp ?? 0,
    );
    return { alertId: r.alertId, alertStatus: r.alertStatus };
  };
  app.post('/alerts/orders', place);
  app.post('/alerts/multi/orders', place);

  app.put<{ Params: { alertId: string } }>('/alerts/orders/:alertId', async (request) => {
    const account = tradingAccountOf(request);
    const { condition, orders } = readAlert(ctx, request.body);
    const r = account.alerts.modify(request.params.alertId, condition, orders);
    if (typeof r === 'string') throw refusal(r, 'conditional order');
    return { alertId: r.alertId, alertStatus: r.alertStatus };
  });

  app.delete<{ Params: { alertId: string } }>('/alerts/orders/:alertId', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const r = account.alerts.cancel(request.params.alertId);
    if (typeof r === 'string') throw refusal(r, 'conditional order');
    return { alertId: r.alertId, alertStatus: r.alertStatus };
  });

  app.get<{ Params: { alertId: string } }>('/alerts/orders/:alertId', async (request) => {
    const r = accountOf(request).alerts.get(request.params.alertId);
    if (!r) throw notFoundError('No conditional order with this id');
    return r;
  });

  app.get('/alerts/orders', async (request) => accountOf(request).alerts.list());
}

/** Forever orders (SINGLE / OCO): place, modify, cancel, list. */
import type { FastifyInstance } from 'fastify';
import { MAX_FOREVER_ORDERS } from '../../accounts/forever-orders.js';
import { accountOf, requireStaticIp, type SimContext, tradingAccountOf } from '../context.js';
import { inputError, orderError } from '../errors.js';
import { asFields, namedFields, optEnum, optInt, optNumber, reqEnum, reqNumber } from '../input.js';
import { readPlaceOrder, refusal } from './order-input.js';

export function registerForeverRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post('/forever/orders', async (request) => {
    const account = tradingAccountOf(request);
    const f = asFields(request.body);
    const orderFlag = reqEnum(f, 'orderFlag', ['SINGLE', 'OCO'] as const);
    const { order, instrument } = readPlaceOrder(ctx, { ...f, orderType: f.orderType ?? 'LIMIT' }, [
      'LIMIT',
      'MARKET',
    ]);
    if (order.exchangeSegment !== 'NSE_EQ' && order.exchangeSegment !== 'BSE_EQ') {
      throw inputError('Forever orders are supported for NSE_EQ and BSE_EQ');
    }
    const triggerPrice = reqNumber(f, 'triggerPrice');
    const oco = orderFlag === 'OCO';
    const price1 = oco ? reqNumber(f, 'price1') : 0;
    const triggerPrice1 = oco ? reqNumber(f, 'triggerPrice1') : 0;
    const quantity1 = oco ? (optInt(f, 'quantity1', 1) ?? order.quantity) : 0;
    if (triggerPrice <= 0 || (oco && triggerPrice1 <= 0)) throw inputError('trigger prices must be positive');
    if (account.forever.count() >= MAX_FOREVER_ORDERS) throw orderError('Too many forever orders');
    const ltp = ctx.market.quote(instrument.securityId)?.ltp ?? 0;
    const r = account.forever.place(
      {
        ...order,
        orderFlag,
        exchangeSegment: order.exchangeSegment,
        triggerPrice,
        price1,
        triggerPrice1,
        quantity1,
      },
      instrument,
      ltp,
    );
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.put<{ Params: { orderId: string } }>('/forever/orders/:orderId', async (request) => {
    const account = tradingAccountOf(request);
    const f = asFields(request.body);
    const existing = account.forever.get(request.params.orderId);
    const quantity = optInt(f, 'quantity', 1);
    const price = optNumber(f, 'price');
    const triggerPrice = optNumber(f, 'triggerPrice');
    const legName = optEnum(f, 'legName', ['TARGET_LEG', 'STOP_LOSS_LEG'] as const);
    const ltp = existing ? (ctx.market.quote(Number(existing.securityId))?.ltp ?? 0) : 0;
    const r = account.forever.modify(
      request.params.orderId,
      namedFields({ quantity, price, triggerPrice, legName }),
      ltp,
    );
    if (typeof r === 'string') throw refusal(r, 'forever order');
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.delete<{ Params: { orderId: string } }>('/forever/orders/:orderId', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const r = account.forever.cancel(request.params.orderId);
    if (typeof r === 'string') throw refusal(r, 'forever order');
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  // The spec names no list path; both spellings seen in the wild are served.
  const list = async (request: import('fastify').FastifyRequest) => accountOf(request).forever.list();
  app.get('/forever/orders', list);
  app.get('/forever/all', list);
}

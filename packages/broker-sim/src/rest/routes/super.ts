/** Super orders: place (entry + target + stop-loss), modify one leg, cancel a leg, list. */
import type { FastifyInstance } from 'fastify';
import { LEG_NAMES } from '../../accounts/types.js';
import { accountOf, requireStaticIp, type SimContext, tradingAccountOf } from '../context.js';
import { inputError } from '../errors.js';
import { asFields, namedFields, optEnum, optInt, optNumber, reqEnum, reqNumber } from '../input.js';
import { readPlaceOrder, refusal } from './order-input.js';

export function registerSuperRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post('/super/orders', async (request) => {
    const account = tradingAccountOf(request);
    const f = asFields(request.body);
    const { order, instrument } = readPlaceOrder(ctx, f, ['LIMIT', 'MARKET']);
    const targetPrice = reqNumber(f, 'targetPrice');
    const stopLossPrice = reqNumber(f, 'stopLossPrice');
    const trailingJump = optNumber(f, 'trailingJump') ?? 0;
    if (trailingJump < 0) throw inputError('trailingJump must not be negative');
    const ref = order.price > 0 ? order.price : (ctx.market.quote(instrument.securityId)?.ltp ?? 0);
    const buy = order.transactionType === 'BUY';
    if (buy ? !(targetPrice > ref && stopLossPrice < ref) : !(targetPrice < ref && stopLossPrice > ref)) {
      throw inputError('targetPrice and stopLossPrice must lie on either side of the entry price');
    }
    const r = account.supers.place({ ...order, targetPrice, stopLossPrice, trailingJump }, instrument);
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.put<{ Params: { orderId: string } }>('/super/orders/:orderId', async (request) => {
    const account = tradingAccountOf(request);
    const f = asFields(request.body);
    const legName = reqEnum(f, 'legName', LEG_NAMES);
    const orderType = optEnum(f, 'orderType', ['LIMIT', 'MARKET'] as const);
    const quantity = optInt(f, 'quantity', 1, 10_000_000);
    const price = optNumber(f, 'price');
    const targetPrice = optNumber(f, 'targetPrice');
    const stopLossPrice = optNumber(f, 'stopLossPrice');
    const trailingJump = optNumber(f, 'trailingJump');
    const r = account.supers.modify(
      request.params.orderId,
      legName,
      namedFields({ orderType, quantity, price, targetPrice, stopLossPrice, trailingJump }),
    );
    if (typeof r === 'string') throw refusal(r, 'super order');
    return { orderId: request.params.orderId, orderStatus: r.orderStatus };
  });

  app.delete<{ Params: { orderId: string; leg: string } }>(
    '/super/orders/:orderId/:leg',
    async (request, reply) => {
      const account = accountOf(request);
      requireStaticIp(request, account);
      const leg = reqEnum({ leg: request.params.leg }, 'leg', LEG_NAMES);
      const r = account.supers.cancelLeg(request.params.orderId, leg);
      if (typeof r === 'string') throw refusal(r, 'super order');
      // The spec's status table lists 200 with order-id and orderStatus (its description says 202).
      return reply.code(200).send(r);
    },
  );

  app.get('/super/orders', async (request) => {
    const account = accountOf(request);
    return account.supers.list(account.ltpOf);
  });
}

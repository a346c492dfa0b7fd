/** Regular orders: place, modify, cancel, slice, order book, by id, by correlation id. */
import type { FastifyInstance } from 'fastify';
import { MAX_ORDERS_PER_DAY } from '../../accounts/order-book.js';
import { ORDER_TYPES, VALIDITIES } from '../../accounts/types.js';
import { accountOf, requireStaticIp, type SimContext, tradingAccountOf } from '../context.js';
import { notFoundError, orderError } from '../errors.js';
import { asFields, namedFields, optEnum, optInt, optNumber } from '../input.js';
import { readPlaceOrder, refusal } from './order-input.js';

interface IdParams {
  orderId: string;
}

export function registerOrderRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post('/orders', async (request) => {
    const account = tradingAccountOf(request);
    const { order, instrument } = readPlaceOrder(ctx, asFields(request.body));
    if (account.book.size() >= MAX_ORDERS_PER_DAY) throw orderError('Order book full for the day');
    const r = account.book.place(order, instrument);
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.post('/orders/slicing', async (request) => {
    const account = tradingAccountOf(request);
    const { order, instrument } = readPlaceOrder(ctx, asFields(request.body));
    const freeze = Math.max(
      instrument.lotSize,
      account.book.freezeQuantity - (account.book.freezeQuantity % instrument.lotSize),
    );
    const parts = Math.ceil(order.quantity / freeze);
    if (account.book.size() + parts > MAX_ORDERS_PER_DAY) throw orderError('Order book full for the day');
    const out: Array<{ orderId: string; orderStatus: string }> = [];
    for (let left = order.quantity; left > 0; left -= freeze) {
      const r = account.book.place({ ...order, quantity: Math.min(freeze, left) }, instrument);
      out.push({ orderId: r.orderId, orderStatus: r.orderStatus });
    }
    return out;
  });

  app.put<{ Params: IdParams }>('/orders/:orderId', async (request) => {
    const account = tradingAccountOf(request);
    const f = asFields(request.body);
    const orderType = optEnum(f, 'orderType', ORDER_TYPES);
    const quantity = optInt(f, 'quantity', 1, 10_000_000);
    const price = optNumber(f, 'price');
    const triggerPrice = optNumber(f, 'triggerPrice');
    const disclosedQuantity = optInt(f, 'disclosedQuantity', 0);
    const validity = optEnum(f, 'validity', VALIDITIES);
    const r = account.book.modify(
      request.params.orderId,
      namedFields({ orderType, quantity, price, triggerPrice, disclosedQuantity, validity }),
    );
    if (typeof r === 'string') throw refusal(r);
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.delete<{ Params: IdParams }>('/orders/:orderId', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const r = account.book.cancel(request.params.orderId, 'Cancelled by user');
    if (typeof r === 'string') throw refusal(r);
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.get('/orders', async (request) => accountOf(request).book.list());

  app.get<{ Params: IdParams }>('/orders/:orderId', async (request) => {
    const r = accountOf(request).book.get(request.params.orderId);
    if (!r) throw notFoundError('No order with this id');
    return r;
  });

  app.get<{ Params: { correlationId: string } }>('/orders/external/:correlationId', async (request) => {
    const r = accountOf(request).book.byCorrelation(request.params.correlationId);
    if (!r) throw notFoundError('No order with this correlation id');
    return r;
  });
}

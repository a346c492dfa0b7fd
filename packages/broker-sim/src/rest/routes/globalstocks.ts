/** US stocks: orders, charge estimate, margin, trades, market status, holdings, fund limit. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { US_ORDER_TYPES, usCharges } from '../../accounts/global-stocks.js';
import { round2 } from '../../accounts/types.js';
import { formatDay, istDay } from '../../history/calendar.js';
import { accountOf, requireStaticIp, type SimContext, tradingAccountOf } from '../context.js';
import { inputError, notFoundError } from '../errors.js';
import {
  asFields,
  type Fields,
  namedFields,
  optBool,
  optEnum,
  optNumber,
  reqEnum,
  reqNumber,
  reqSecurityId,
} from '../input.js';
import type { SimInstrument } from '../market-source.js';
import { readCorrelationId, refusal } from './order-input.js';

function usInstrument(ctx: SimContext, f: Fields): SimInstrument {
  const id = reqSecurityId(f);
  const inst = ctx.market.instrument(id);
  if (inst?.exchangeSegment !== 'INX_EQ') throw inputError(`Invalid securityId ${id} for global stocks`);
  return inst;
}

/** Quantities are fractional: positive, at most 6 decimals. */
function quantityOf(f: Fields, required: boolean): number | undefined {
  const q = optNumber(f, 'quantity');
  if (q === undefined) {
    if (required) throw inputError('quantity is required');
    return undefined;
  }
  if (!(q > 0) || Math.round(q * 1e6) / 1e6 !== q)
    throw inputError('quantity must be positive with at most 6 decimals');
  return q;
}

export function registerGlobalStocksRoutes(app: FastifyInstance, ctx: SimContext): void {
  registerUsOrderRoutes(app, ctx);
  registerUsEstimateRoutes(app, ctx);
  registerUsAccountRoutes(app, ctx);
}

/** A new US order: its type decides which of amount, quantity, price and trigger are required. */
function placeUsOrder(ctx: SimContext, request: FastifyRequest) {
  const account = tradingAccountOf(request);
  const f = asFields(request.body);
  const transactionType = optEnum(f, 'transactionType', ['BUY', 'SELL'] as const) ?? 'BUY';
  const orderType = optEnum(f, 'orderType', US_ORDER_TYPES) ?? 'LIMIT';
  const inst = usInstrument(ctx, f);
  const amount = orderType === 'AMOUNT' ? reqNumber(f, 'amount') : 0;
  if (orderType === 'AMOUNT' && !(amount > 0)) throw inputError('amount must be positive for AMOUNT orders');
  if (orderType === 'AMOUNT' && transactionType !== 'BUY') throw inputError('AMOUNT orders are BUY orders');
  const quantity = orderType === 'AMOUNT' ? 0 : (quantityOf(f, true) ?? 0);
  const price = optNumber(f, 'price') ?? 0;
  const triggerPrice = optNumber(f, 'triggerPrice') ?? 0;
  if ((orderType === 'LIMIT' || orderType === 'STOP_LOSS') && !(price > 0))
    throw inputError('price must be positive');
  if ((orderType === 'STOP_LOSS' || orderType === 'STOP_LOSS_MARKET') && !(triggerPrice > 0)) {
    throw inputError('triggerPrice must be positive');
  }
  const r = account.us.place(
    {
      correlationId: readCorrelationId(f),
      transactionType,
      orderType,
      securityId: inst.securityId,
      quantity,
      price,
      triggerPrice,
      amount,
      afterMarketOrder: optBool(f, 'afterMarketOrder') ?? false,
    },
    inst,
  );
  return { orderId: r.orderId, orderStatus: r.orderStatus };
}

/** Place, modify, cancel, read and list US orders. */
function registerUsOrderRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post('/globalstocks/orders', async (request) => placeUsOrder(ctx, request));

  app.put<{ Params: { orderId: string } }>('/globalstocks/orders/:orderId', async (request) => {
    const account = tradingAccountOf(request);
    const f = asFields(request.body);
    const orderType = reqEnum(f, 'orderType', US_ORDER_TYPES);
    reqEnum(f, 'transactionType', ['BUY', 'SELL'] as const);
    usInstrument(ctx, f);
    const quantity = quantityOf(f, false);
    const price = optNumber(f, 'price');
    const r = account.us.modify(request.params.orderId, { orderType, ...namedFields({ quantity, price }) });
    if (typeof r === 'string') throw refusal(r);
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.delete<{ Params: { orderId: string } }>('/globalstocks/orders/:orderId', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const r = account.us.cancel(request.params.orderId);
    if (typeof r === 'string') throw refusal(r);
    return { orderId: r.orderId, orderStatus: r.orderStatus };
  });

  app.get<{ Params: { orderId: string } }>('/globalstocks/orders/:orderId', async (request) => {
    const r = accountOf(request).us.get(request.params.orderId);
    if (!r) throw notFoundError('No order with this id');
    return r;
  });
  app.get('/globalstocks/orders', async (request) => accountOf(request).us.list());
}

/** The charge estimate and the margin of a US order. */
function registerUsEstimateRoutes(app: FastifyInstance, ctx: SimContext): void {
  const estimate = (request: FastifyRequest) => {
    const f = asFields(request.body);
    usInstrument(ctx, f);
    const price = reqNumber(f, 'price');
    const quantity = quantityOf(f, true) ?? 0;
    reqEnum(f, 'transactionType', ['BUY', 'SELL'] as const);
    const ltp = ctx.market.quote(Number(f.securityId))?.ltp ?? 0;
    const value = round2(quantity * (price > 0 ? price : ltp));
    return { value, charges: usCharges(value) };
  };
  app.post('/globalstocks/transEstimate', async (request) => {
    const { value, charges } = estimate(request);
    const exchange = round2(value * 0.0000278);
    const gst = round2((charges.brokerage + exchange) * 0.18);
    return {
      brokerage: charges.brokerage,
      orderCharges: round2(charges.brokerage + charges.other + exchange + gst),
      exchangeCharges: exchange,
      turnOverFee: charges.other,
      gstCharges: gst,
      otherCharges: charges.other,
    };
  });
  app.post('/globalstocks/margincalculator', async (request) => {
    const account = accountOf(request);
    const { value, charges } = estimate(request);
    const available = account.us.availableCash();
    const total = round2(value + charges.brokerage + charges.other);
    return {
      brokerage: charges.brokerage,
      leverage: '1.00',
      insufficientBal: Math.max(0, round2(total - available)),
      totalMargin: total,
      availableBal: available,
    };
  });
}

/** Trades, market status, holdings and fund limit of the US account. */
function registerUsAccountRoutes(app: FastifyInstance, ctx: SimContext): void {
  // "Trades of the current day": the book keeps earlier days' trades, so both reads keep today's.
  const today = () => formatDay(istDay(ctx.now() / 1000));
  app.get('/globalstocks/trades', async (request) =>
    accountOf(request).us.trades.filter((t) => t.tradeDate === today()),
  );
  app.get<{ Params: { securityId: string } }>('/globalstocks/trades/:securityId', async (request) =>
    accountOf(request).us.trades.filter(
      (t) => t.securityId === request.params.securityId && t.tradeDate === today(),
    ),
  );
  app.get('/globalstocks/marketstatus', async () => {
    const open = ctx.market.session() === 'OPEN';
    return {
      marketOpenTime: '09:30:00',
      marketCloseTime: '16:00:00',
      holidayFlag: false,
      status: open ? 'open' : 'closed',
    };
  });
  app.get('/globalstocks/holdings', async (request) => {
    const account = accountOf(request);
    return account.us.holdingsView((id) => ctx.market.quote(id));
  });
  app.get('/globalstocks/fundlimit', async (request) => accountOf(request).us.fundLimit());
}

/** Trades (today, by order, history pages), positions (list, convert, exit all), holdings. */
import type { FastifyInstance } from 'fastify';
import { ORDER_SEGMENTS, PRODUCT_TYPES } from '../../accounts/types.js';
import { istDay, parseDay } from '../../history/calendar.js';
import { accountOf, requireStaticIp, type SimContext } from '../context.js';
import { inputError, orderError } from '../errors.js';
import { asFields, optEnum, reqEnum, reqInt, reqSecurityId } from '../input.js';
import { orderInstrument } from './order-input.js';

/** Trade history page size (the spec does not show one). */
export const TRADE_HISTORY_PAGE_SIZE = 50;

export function registerPortfolioRoutes(app: FastifyInstance, ctx: SimContext): void {
  const today = () => istDay(ctx.now() / 1000);
  const wire = <T extends { atMs: number; isin: string }>(t: T) => {
    const { atMs: _a, isin: _i, ...rest } = t;
    return rest;
  };

  app.get('/trades', async (request) =>
    accountOf(request)
      .portfolio.trades.filter((t) => istDay(t.atMs / 1000) === today())
      .map(wire),
  );

  app.get<{ Params: { orderId: string } }>('/trades/:orderId', async (request) => {
    // `/trades/` is today's book (the router ignores a trailing slash); an empty id never matches.
    if (request.params.orderId === '') throw inputError('order-id is required');
    return accountOf(request)
      .portfolio.trades.filter((t) => t.orderId === request.params.orderId)
      .map((t) => {
        const { customSymbol: _c, orderId, ...rest } = wire(t);
        return { ...rest, 'order-id': orderId };
      });
  });

  app.get<{ Params: { from: string; to: string; page: string } }>(
    '/trades/:from/:to/:page',
    async (request) => {
      const from = parseDay(request.params.from);
      const to = parseDay(request.params.to);
      const page = Number(request.params.page);
      if (from === undefined || to === undefined)
        throw inputError('from-date and to-date must be YYYY-MM-DD');
      if (from > to) throw inputError('from-date must not be after to-date');
      if (!Number.isInteger(page) || page < 0) throw inputError('page-number must be a non-negative integer');
      const rows = accountOf(request).portfolio.trades.filter((t) => {
        const d = istDay(t.atMs / 1000);
        return d >= from && d <= to;
      });
      return rows.slice(page * TRADE_HISTORY_PAGE_SIZE, (page + 1) * TRADE_HISTORY_PAGE_SIZE).map((t) => {
        const value = t.tradedQuantity * t.tradedPrice;
        const { tradingSymbol: _s, atMs: _a, ...rest } = t;
        return {
          ...rest,
          instrument: 'EQUITY',
          regTax: 0,
          stt: round(value * 0.001),
          brokerageCharges: round(Math.min(20, value * 0.0003)),
          serviceTax: round(Math.min(20, value * 0.0003) * 0.18),
          exchangeTransactionCharges: round(value * 0.0000297),
          stampDuty: t.transactionType === 'BUY' ? round(value * 0.00015) : 0,
        };
      });
    },
  );

  app.get('/positions', async (request) => {
    const account = accountOf(request);
    return account.portfolio.positionsView(account.ltpOf);
  });

  app.delete('/positions', async (request, reply) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    account.exitAll();
    return reply.code(202).send();
  });

  app.post('/positions/convert', async (request, reply) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const f = asFields(request.body);
    const segment = reqEnum(f, 'exchangeSegment', ORDER_SEGMENTS);
    const from = optEnum(f, 'fromProductType', PRODUCT_TYPES) ?? 'INTRADAY';
    const to = optEnum(f, 'toProductType', PRODUCT_TYPES) ?? 'CNC';
    const securityId = reqSecurityId(f);
    const qty = reqInt(f, 'convertQty', 1);
    if (from === to) throw inputError('fromProductType and toProductType must differ');
    const inst = orderInstrument(ctx, segment, securityId);
    if (!account.portfolio.convert(segment, securityId, from, to, qty, inst)) {
      throw orderError('No open position with that quantity to convert');
    }
    return reply.code(202).send();
  });

  app.get('/holdings', async (request) => {
    const account = accountOf(request);
    return account.portfolio.holdingsView(account.ltpOf);
  });
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

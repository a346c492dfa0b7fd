/** Fund limit, margin calculators, P&L exit, kill switch and ledger. */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { MARGIN_RATES } from '../../accounts/portfolio.js';
import { ORDER_SEGMENTS, PRODUCT_TYPES, round2, TRANSACTION_TYPES } from '../../accounts/types.js';
import { parseDay } from '../../history/calendar.js';
import { accountOf, requireStaticIp, type SimContext } from '../context.js';
import { inputError, orderError } from '../errors.js';
import {
  asFields,
  type Fields,
  optBool,
  optNumber,
  optString,
  reqEnum,
  reqInt,
  reqSecurityId,
} from '../input.js';
import { orderInstrument } from './order-input.js';

/** Flat brokerage per order the calculators show (INR). */
const BROKERAGE_PER_ORDER = 20;

function marginOf(ctx: SimContext, f: Fields): { total: number; product: (typeof PRODUCT_TYPES)[number] } {
  const segment = reqEnum(f, 'exchangeSegment', ORDER_SEGMENTS);
  reqEnum(f, 'transactionType', TRANSACTION_TYPES);
  const quantity = reqInt(f, 'quantity', 1);
  const product = reqEnum(f, 'productType', PRODUCT_TYPES);
  const securityId = reqSecurityId(f);
  const inst = orderInstrument(ctx, segment, securityId);
  const price =
    optNumber(f, 'price') || optNumber(f, 'triggerPrice') || ctx.market.quote(inst.securityId)?.ltp || 0;
  return { total: round2(quantity * price * MARGIN_RATES[product]), product };
}

function pnlView(account: Account): Record<string, unknown> {
  const c = account.pnlExit;
  return {
    pnlExitStatus: c ? 'ACTIVE' : 'INACTIVE',
    profit: c?.profit ?? 0,
    loss: c?.loss ?? 0,
    enableKillSwitch: c?.enableKillSwitch ?? false,
    productType: c?.productType ?? [],
  };
}

export function registerFundsRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get('/fundlimit', async (request) => accountOf(request).fundLimit());
  registerMarginRoutes(app, ctx);
  registerPnlExitRoutes(app);
  registerKillSwitchRoutes(app);
  registerLedgerRoutes(app);
}

/** The margin calculators: one order, or a list of them with positions and open orders. */
function registerMarginRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post('/margincalculator', async (request) => {
    const account = accountOf(request);
    const { total, product } = marginOf(ctx, asFields(request.body));
    const available = account.availableBalance();
    return {
      totalMargin: total,
      spanMargin: 0,
      exposureMargin: 0,
      availableBalance: available,
      variableMargin: total,
      insufficientBalance: Math.max(0, round2(total - available)),
      brokerage: BROKERAGE_PER_ORDER,
      leverage: (1 / MARGIN_RATES[product]).toFixed(2),
    };
  });

  app.post('/margincalculator/multi', async (request) => {
    const account = accountOf(request);
    const f = asFields(request.body);
    if (!Array.isArray(f.scripList) || f.scripList.length === 0)
      throw inputError('scripList must be a non-empty array');
    if (f.scripList.length > 100) throw inputError('scripList holds at most 100 items');
    let equity = f.scripList.reduce<number>(
      (sum, s) => sum + marginOf(ctx, asFields(s, 'scripList[]')).total,
      0,
    );
    if (optBool(f, 'includePosition')) equity += account.portfolio.positionMargin();
    if (optBool(f, 'includeOrder')) equity += account.book.blockedMargin();
    const total = round2(equity);
    return {
      clientId: account.clientId,
      totalMargin: total,
      spanMargin: 0,
      exposure: 0,
      equityMargin: total,
      foMargin: 0,
      commodity: 0,
      currency: 0,
    };
  });
}

/** P&L based exit: set, read and stop for the day. */
function registerPnlExitRoutes(app: FastifyInstance): void {
  app.post('/pnlExit', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const f = asFields(request.body);
    const profit = optNumber(f, 'profitValue') ?? 0;
    const loss = optNumber(f, 'lossValue') ?? 0;
    if (profit < 0 || loss < 0) throw inputError('profitValue and lossValue must not be negative');
    if (profit === 0 && loss === 0) throw inputError('give profitValue or lossValue');
    const raw =
      f.productType === undefined
        ? ['INTRADAY']
        : Array.isArray(f.productType)
          ? f.productType
          : [f.productType];
    const productType = raw.map((p) =>
      reqEnum({ productType: p }, 'productType', ['INTRADAY', 'DELIVERY'] as const),
    );
    account.pnlExit = {
      profit,
      loss,
      productType,
      enableKillSwitch: optBool(f, 'enableKillSwitch') ?? false,
    };
    return { pnlExitStatus: 'ACTIVE', message: 'P&L based exit configured for the day' };
  });
  app.get('/pnlExit', async (request) => pnlView(accountOf(request)));
  app.delete('/pnlExit', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    account.pnlExit = undefined;
    return { pnlExitStatus: 'INACTIVE', message: 'P&L based exit stopped' };
  });
}

function registerKillSwitchRoutes(app: FastifyInstance): void {
  app.post('/killswitch', async (request) => {
    const account = accountOf(request);
    requireStaticIp(request, account);
    const q = asFields(request.query);
    const b = asFields(request.body);
    // The spec puts killSwitchStatus in the query; a body field of that name is read as well.
    const status = reqEnum(
      { killSwitchStatus: q.killSwitchStatus ?? b.killSwitchStatus },
      'killSwitchStatus',
      ['ACTIVATE', 'DEACTIVATE'] as const,
    );
    // The spec's state table: any -> ACTIVATE when all positions are closed and no order is
    // pending; ACTIVATE -> DEACTIVATE with no condition shown. Left active, it lifts at day end.
    if (status === 'ACTIVATE') {
      if (!account.killSwitch && !account.canActivateKillSwitch()) {
        throw orderError('Kill switch needs all positions closed and no pending orders');
      }
      account.killSwitch = true;
    } else {
      account.killSwitch = false;
    }
    return { killSwitchStatus: account.killSwitch ? 'ACTIVATE' : 'DEACTIVATE' };
  });
  app.get('/killswitch', async (request) => {
    const account = accountOf(request);
    return {
      svcClientId: account.clientId,
      killSwitchStatus: account.killSwitch ? 'ACTIVATE' : 'DEACTIVATE',
    };
  });
}

/** The ledger, filtered to a date range when one is given. */
function registerLedgerRoutes(app: FastifyInstance): void {
  app.get('/ledger', async (request) => {
    const account = accountOf(request);
    const q = asFields(request.query);
    const fromText = optString(q, 'from-date', 10);
    const toText = optString(q, 'to-date', 10);
    const from = fromText === undefined ? undefined : parseDay(fromText);
    const to = toText === undefined ? undefined : parseDay(toText);
    if ((fromText !== undefined && from === undefined) || (toText !== undefined && to === undefined)) {
      throw inputError('from-date and to-date must be YYYY-MM-DD');
    }
    return account.portfolio.ledger.filter((e) => {
      const d = parseDay(e.voucherdate) ?? 0;
      return (from === undefined || d >= from) && (to === undefined || d <= to);
    });
  });
}

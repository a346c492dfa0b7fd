/**
 * Candles: /charts/historical (daily, back to inception, toDate exclusive), /charts/intraday
 * (1/5/15/30/60 minutes, last 5 years, at most 90 days per call; dates as YYYY-MM-DD or
 * YYYY-MM-DD HH:MM:SS in IST, toDate exclusive) and /charts/rollingoption (expired options, at
 * most 45 days per call, up to 5 years back). Answers parallel arrays.
 */
import type { FastifyInstance } from 'fastify';
import { DAY_S, istDay, parseIstInstant } from '../../history/calendar.js';
import type { BarColumns } from '../../history/day-bars.js';
import { ROLLING_FIELDS, type RollingField, rollingOption } from '../../history/rolling-option.js';
import type { SimContext } from '../context.js';
import { dataError } from '../errors.js';
import { asFields, type Fields, optArray, optEnum, optString } from '../input.js';
import type { SimInstrument } from '../market-source.js';
import { asDataInput, dataAccount } from './data-common.js';

export const MAX_INTRADAY_DAYS = 90;
export const MAX_ROLLING_DAYS = 45;
export const HISTORY_YEARS = 5;
const CHART_SEGMENTS = ['NSE_EQ', 'NSE_FNO', 'BSE_EQ', 'BSE_FNO', 'MCX_COMM', 'IDX_I'] as const;
const INTERVALS = ['1', '5', '15', '30', '60'] as const;

interface Columns {
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  timestamp: number[];
  open_interest: number[];
}

function emptyColumns(): Columns {
  return { open: [], high: [], low: [], close: [], volume: [], timestamp: [], open_interest: [] };
}

function append(out: Columns, bars: BarColumns, fromS: number, toS: number, oi: boolean): void {
  for (let i = 0; i < bars.open.length; i++) {
    const ts = bars.timestamp[i]!;
    if (ts < fromS || ts >= toS) continue;
    out.open.push(bars.open[i]!);
    out.high.push(bars.high[i]!);
    out.low.push(bars.low[i]!);
    out.close.push(bars.close[i]!);
    out.volume.push(bars.volume[i]!);
    out.timestamp.push(ts);
    if (oi) out.open_interest.push(0);
  }
}

function chartInstrument(ctx: SimContext, f: Fields): SimInstrument {
  const segment = asDataInput(() => optEnum(f, 'exchangeSegment', CHART_SEGMENTS)) ?? 'NSE_EQ';
  const raw = f.securityId;
  const id = Number(raw);
  const inst = Number.isInteger(id) && id > 0 ? ctx.market.instrument(id) : undefined;
  if (!inst || inst.exchangeSegment !== segment) throw dataError('813', `Invalid security id for ${segment}`);
  return inst;
}

function dateRange(f: Fields, defaultFrom: number, defaultTo: number): { fromS: number; toS: number } {
  const parse = (key: string, dflt: number): number => {
    const text = asDataInput(() => optString(f, key, 19));
    if (text === undefined) return dflt;
    const t = parseIstInstant(text);
    if (t === undefined) throw dataError('812', `${key} must be YYYY-MM-DD or YYYY-MM-DD HH:MM:SS`);
    return t;
  };
  const fromS = parse('fromDate', defaultFrom);
  const toS = parse('toDate', defaultTo);
  if (fromS >= toS) throw dataError('812', 'fromDate must be before toDate');
  return { fromS, toS };
}

export function registerChartRoutes(app: FastifyInstance, ctx: SimContext): void {
  const prices = ctx.history.prices;
  const todayStart = () => istDay(ctx.now() / 1000) * DAY_S - 19_800;

  app.post('/charts/historical', async (request) => {
    dataAccount(request);
    const f = asFields(request.body);
    const inst = chartInstrument(ctx, f);
    const inception = parseIstInstant(inst.inceptionDate) ?? 0;
    const { fromS, toS } = dateRange(f, inception, todayStart() + DAY_S);
    const out = emptyColumns();
    const oi = f.oi === true || f.oi === 'true';
    const first = Math.max(istDay(fromS), istDay(inception));
    const last = Math.min(istDay(toS - 1), istDay(ctx.now() / 1000));
    for (let d = first; d <= last; d++) {
      const bar = prices.dailyBar(inst, d);
      if (bar) append(out, bar, fromS, toS, oi);
    }
    return out;
  });

  app.post('/charts/intraday', async (request) => {
    dataAccount(request);
    const f = asFields(request.body);
    const inst = chartInstrument(ctx, f);
    const interval = Number(asDataInput(() => optEnum(f, 'interval', INTERVALS)) ?? '5');
    const { fromS, toS } = dateRange(f, todayStart(), todayStart() + DAY_S);
    if (toS - fromS > MAX_INTRADAY_DAYS * DAY_S) {
      throw dataError('812', `Date range too long: at most ${MAX_INTRADAY_DAYS} days per intraday request`);
    }
    const oldest = todayStart() - Math.round(HISTORY_YEARS * 365.25) * DAY_S;
    if (fromS < oldest)
      throw dataError('812', `Intraday history covers the last ${HISTORY_YEARS} years only`);
    const out = emptyColumns();
    const oi = f.oi === true || f.oi === 'true';
    const last = Math.min(istDay(toS - 1), istDay(ctx.now() / 1000));
    for (let d = istDay(fromS); d <= last; d++) {
      const bars = prices.intradayBars(inst, d, interval);
      if (bars) append(out, bars, fromS, toS, oi);
    }
    return out;
  });

  app.post('/charts/rollingoption', async (request) => {
    dataAccount(request);
    const f = asFields(request.body);
    const segment =
      asDataInput(() => optEnum(f, 'exchangeSegment', ['NSE_FNO', 'BSE_FNO'] as const)) ?? 'NSE_FNO';
    const interval = Number(asDataInput(() => optEnum(f, 'interval', INTERVALS)) ?? '5');
    const instrument = asDataInput(() => optEnum(f, 'instrument', ['OPTIDX', 'OPTSTK'] as const)) ?? 'OPTIDX';
    const expiryFlag = asDataInput(() => optEnum(f, 'expiryFlag', ['WEEK', 'MONTH'] as const)) ?? 'WEEK';
    const expiryCode = Number(asDataInput(() => optEnum(f, 'expiryCode', ['1', '2', '3'] as const)) ?? '1') as
      | 1
      | 2
      | 3;
    const option = asDataInput(() => optEnum(f, 'drvOptionType', ['CALL', 'PUT'] as const)) ?? 'CALL';
    const strikeText = asDataInput(() => optString(f, 'strike', 10)) ?? 'ATM';
    const m = /^ATM(?:([+-])(\d{1,2}))?$/.exec(strikeText);
    const offset = m ? (m[1] === '-' ? -1 : 1) * Number(m[2] ?? '0') : Number.NaN;
    if (!m || Math.abs(offset) > 10)
      throw dataError('814', 'strike must be ATM, ATM+1..ATM+10 or ATM-1..ATM-10');
    if (instrument === 'OPTSTK' && expiryFlag === 'WEEK')
      throw dataError('814', 'stock options have monthly expiries only');
    const required = asDataInput(() => optArray(f, 'requiredData')) ?? [...ROLLING_FIELDS];
    if (required.some((x) => !(ROLLING_FIELDS as readonly unknown[]).includes(x))) {
      throw dataError('814', `requiredData must be an array of ${ROLLING_FIELDS.join(', ')}`);
    }
    const id = Number(f.securityId);
    const u = Number.isInteger(id) && id > 0 ? ctx.market.instrument(id) : undefined;
    const wantSeg = instrument === 'OPTIDX' ? 'IDX_I' : segment === 'BSE_FNO' ? 'BSE_EQ' : 'NSE_EQ';
    if (!u || u.exchangeSegment !== wantSeg)
      throw dataError('813', `Invalid underlying security id for ${instrument}`);
    const { fromS, toS } = dateRange(f, todayStart() - 7 * DAY_S, todayStart());
    if (toS - fromS > MAX_ROLLING_DAYS * DAY_S) {
      throw dataError(
        '812',
        `Date range too long: at most ${MAX_ROLLING_DAYS} days per expired-options request`,
      );
    }
    const oldest = todayStart() - Math.round(HISTORY_YEARS * 365.25) * DAY_S;
    if (fromS < oldest)
      throw dataError('812', `Expired options data covers the last ${HISTORY_YEARS} years only`);
    const cols = rollingOption(prices, ctx.history.options, {
      underlying: u,
      fromDay: istDay(fromS),
      toDay: Math.min(istDay(toS - 1) + 1, istDay(ctx.now() / 1000)),
      interval,
      expiryFlag,
      expiryCode,
      offset,
      call: option === 'CALL',
      fields: required as RollingField[],
    });
    const side = option === 'CALL' ? 'ce' : 'pe';
    return { data: { ce: side === 'ce' ? cols : null, pe: side === 'pe' ? cols : null } };
  });
}

/**
 * One unit, one request: calls the client for the unit's kind and turns the answer into rows of
 * the unit's table (columns as in tables.ts). Integer columns are rounded because JSON numbers
 * reach ClickHouse as text and Int64 does not take a fraction.
 */
import {
  type BrokerClient,
  type Candles,
  type ColumnSet,
  EXPIRED_OPTIONS_FIELDS,
  type OptionChainSide,
  optionChainRows,
} from '@feedpipe/broker-api';
import { DAY_S, formatDate } from './calendar.js';
import type { TableId } from './tables.js';
import { fromDate, toDate, type WorkUnit } from './units.js';

export interface UnitRows {
  table: TableId;
  rows: unknown[][];
  /** Expiry dates, for expiry-list units (the planner makes chain units of them). */
  expiries?: string[];
}

const int = (v: number | undefined): number => Math.round(v ?? 0);

/** One row per candle: the `key` columns, then time, OHLC, volume, open interest and `at`. */
function candleRows(key: readonly unknown[], candles: Candles, at: number): unknown[][] {
  const oi = candles.openInterest;
  const rows: unknown[][] = [];
  for (let i = 0; i < candles.length; i++) {
    rows.push([
      ...key,
      candles.timestamp[i],
      candles.open[i],
      candles.high[i],
      candles.low[i],
      candles.close[i],
      int(candles.volume[i]),
      int(oi?.[i]),
      at,
    ]);
  }
  return rows;
}

export async function fetchUnit(
  client: BrokerClient,
  u: WorkUnit,
  signal: AbortSignal,
  nowMs: () => number,
): Promise<UnitRows> {
  const inst = u.instrument;
  switch (u.kind) {
    case 'daily': {
      const candles = await client.history.daily(
        {
          securityId: String(u.securityId),
          exchangeSegment: inst.segment,
          instrument: inst.instrument,
          ...(inst.expiryCode === undefined ? {} : { expiryCode: inst.expiryCode }),
          fromDate: fromDate(u),
          toDate: toDate(u),
        },
        signal,
      );
      return { table: 'daily', rows: candleRows([u.securityId, inst.segment], candles, nowMs()) };
    }
    case 'intraday': {
      const candles = await client.history.intraday(
        {
          securityId: String(u.securityId),
          exchangeSegment: inst.segment,
          instrument: inst.instrument,
          interval: u.interval as 1 | 5 | 15 | 30 | 60,
          ...(inst.expiryCode === undefined ? {} : { expiryCode: inst.expiryCode }),
          fromDate: fromDate(u),
          toDate: toDate(u),
        },
        signal,
      );
      return {
        table: 'intraday',
        rows: candleRows([u.securityId, inst.segment, u.interval], candles, nowMs()),
      };
    }
    case 'expiry_list': {
      const expiries = await client.optionChain.expiries(
        { UnderlyingScrip: u.securityId, UnderlyingSeg: inst.segment },
        signal,
      );
      const at = nowMs();
      const asOf = formatDate(Math.round((u.fromS + 19_800) / DAY_S));
      return {
        table: 'expiryLists',
        rows: expiries.map((e) => [u.securityId, inst.segment, asOf, e, at]),
        expiries,
      };
    }
    case 'option_chain': {
      const chain = await client.optionChain.chain(
        { UnderlyingScrip: u.securityId, UnderlyingSeg: inst.segment, Expiry: u.variant },
        signal,
      );
      const at = nowMs();
      const rows: unknown[][] = [];
      for (const strike of optionChainRows(chain)) {
        if (strike.ce) rows.push(chainRow(u, strike.strike, 'CE', strike.ce, chain.last_price, at));
        if (strike.pe) rows.push(chainRow(u, strike.strike, 'PE', strike.pe, chain.last_price, at));
      }
      return { table: 'optionChain', rows };
    }
    case 'expired_options': {
      const spec = u.expired;
      if (spec === undefined) throw new Error('expired_options unit without its option series');
      const answer = await client.history.expiredOptions(
        {
          exchangeSegment: u.segment as 'NSE_FNO' | 'BSE_FNO',
          interval: u.interval as 1 | 5 | 15 | 30 | 60,
          securityId: String(u.securityId),
          instrument: spec.instrument,
          expiryFlag: spec.expiryFlag,
          expiryCode: spec.expiryCode,
          strike: spec.strike,
          drvOptionType: spec.side,
          requiredData: [...EXPIRED_OPTIONS_FIELDS],
          fromDate: fromDate(u),
          toDate: toDate(u),
        },
        signal,
      );
      const at = nowMs();
      const columns = spec.side === 'CALL' ? answer.ce : answer.pe;
      return { table: 'expiredOptions', rows: columns === undefined ? [] : expiredRows(u, columns, at) };
    }
  }
}

function chainRow(
  u: WorkUnit,
  strike: number,
  side: 'CE' | 'PE',
  s: OptionChainSide,
  spot: number,
  at: number,
): unknown[] {
  return [
    u.securityId,
    u.segment,
    u.variant,
    u.fromS,
    strike,
    side,
    at,
    spot,
    int(s.security_id),
    s.last_price ?? 0,
    s.average_price ?? 0,
    s.previous_close_price ?? 0,
    s.implied_volatility ?? 0,
    s.greeks?.delta ?? 0,
    s.greeks?.theta ?? 0,
    s.greeks?.gamma ?? 0,
    s.greeks?.vega ?? 0,
    int(s.oi),
    int(s.previous_oi),
    int(s.volume),
    int(s.previous_volume),
    s.top_bid_price ?? 0,
    int(s.top_bid_quantity),
    s.top_ask_price ?? 0,
    int(s.top_ask_quantity),
    at,
  ];
}

type ExpiredField = (typeof EXPIRED_OPTIONS_FIELDS)[number];

function expiredRows(u: WorkUnit, c: ColumnSet<ExpiredField>, at: number): unknown[][] {
  const spec = u.expired;
  if (spec === undefined) return [];
  const col = (f: ExpiredField): Float64Array | undefined => c.column(f);
  const [open, high, low, close, iv, volume, oi, strike, spot] = (
    ['open', 'high', 'low', 'close', 'iv', 'volume', 'oi', 'strike', 'spot'] as const
  ).map(col);
  const rows: unknown[][] = [];
  for (let i = 0; i < c.length; i++) {
    rows.push([
      u.securityId,
      u.segment,
      spec.instrument,
      spec.expiryFlag,
      spec.expiryCode,
      spec.side,
      spec.offset,
      u.interval,
      c.timestamp[i],
      open?.[i] ?? 0,
      high?.[i] ?? 0,
      low?.[i] ?? 0,
      close?.[i] ?? 0,
      iv?.[i] ?? 0,
      int(volume?.[i]),
      int(oi?.[i]),
      strike?.[i] ?? 0,
      spot?.[i] ?? 0,
      at,
    ]);
  }
  return rows;
}

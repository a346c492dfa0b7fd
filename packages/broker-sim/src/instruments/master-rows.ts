/**
 * The simulator's instrument master for one IST day: every instrument of the universe (indices,
 * NSE and BSE stocks, its own US stocks) and the option contracts an option chain of that day lists
 * (index options on every listed expiry, options of the well-known NSE stocks on the monthly ones),
 * so every row of the list can be quoted through /marketfeed and joined to what the feed stores.
 *
 * The list is a pure function of the seed, the day and the previous close: equities stay the same
 * row day after day, while option contracts appear when an expiry is listed or the strike grid
 * moves with the price and leave after expiry, which is the history a loader of the list keeps.
 * Futures are not listed: the simulator prices no futures contract.
 */

import { istMidnight } from '../history/calendar.js';
import { expiryList, formatExpiry, strikeStep } from '../history/expiries.js';
import { expiryInstant, STRIKES_EACH_SIDE } from '../history/option-chain.js';
import { hashKeys } from '../history/random.js';
import type { HistoryService } from '../history/service.js';
import type { MarketSource, SimInstrument } from '../rest/market-source.js';

/** One row of the list, in the published file's terms (beyond-the-spec.md, "Instrument master"). */
export interface MasterRow {
  /** SEM_EXM_EXCH_ID: NSE, BSE, or US for the simulator's global stocks (INX_EQ). */
  exchange: string;
  /** SEM_SEGMENT: E equity, D derivatives, I index. */
  segment: 'E' | 'D' | 'I';
  securityId: number;
  instrumentName: string;
  expiryCode: number;
  tradingSymbol: string;
  lotUnits: number;
  customSymbol: string;
  /** `YYYY-MM-DD HH:MM:SS` (IST), empty without an expiry. */
  expiryDate: string;
  /** Undefined for anything but an option. */
  strikePrice: number | undefined;
  optionType: 'CE' | 'PE' | 'XX';
  tickSize: number;
  /** W or M for an option's expiry; empty otherwise. */
  expiryFlag: string;
  series: string;
  symbolName: string;
  isin: string;
  underlyingSecurityId: number | undefined;
  underlyingSymbol: string;
}

/**
 * The exchange id the simulator writes for its global stocks. Whether the real list carries them is
 * not shown (beyond-the-spec.md), so the simulator picks a code no Indian exchange uses.
 */
export const GLOBAL_STOCKS_EXCHANGE = 'US';

/** Stock options are listed for the NSE stocks with a familiar name: a few thousand contracts in all. */
const STOCK_OPTION_UNDERLYINGS = 15;

/** Customary index lot sizes; the simulator's option model prices per unit, these are for the list. */
const INDEX_LOTS: Readonly<Record<string, number>> = {
  NIFTY: 75,
  BANKNIFTY: 30,
  FINNIFTY: 65,
  SENSEX: 20,
  MIDCPNIFTY: 120,
};
const STOCK_LOTS = [250, 500, 700, 1000, 1500];

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

function exchangeOf(inst: SimInstrument): string {
  if (inst.exchangeSegment === 'BSE_EQ' || inst.symbol === 'SENSEX') return 'BSE';
  if (inst.exchangeSegment === 'INX_EQ') return GLOBAL_STOCKS_EXCHANGE;
  return 'NSE';
}

function plainRow(inst: SimInstrument): MasterRow {
  const index = inst.exchangeSegment === 'IDX_I';
  return {
    exchange: exchangeOf(inst),
    segment: index ? 'I' : 'E',
    securityId: inst.securityId,
    instrumentName: inst.instrumentType,
    expiryCode: 0,
    tradingSymbol: inst.symbol,
    lotUnits: inst.lotSize,
    customSymbol: inst.symbol,
    expiryDate: '',
    strikePrice: undefined,
    optionType: 'XX',
    tickSize: inst.tickSize,
    expiryFlag: '',
    series: inst.exchangeSegment === 'NSE_EQ' ? 'EQ' : inst.exchangeSegment === 'BSE_EQ' ? 'A' : '',
    symbolName: inst.symbol,
    isin: inst.isin,
    underlyingSecurityId: undefined,
    underlyingSymbol: '',
  };
}

function lotOf(u: SimInstrument, seed: number): number {
  return INDEX_LOTS[u.symbol] ?? STOCK_LOTS[hashKeys(seed, u.securityId, 0x71) % STOCK_LOTS.length] ?? 1;
}

/** `2026-11-26 15:30:00`: an expiry ends at 15:30 IST of its day. */
function expiryText(day: number): string {
  return `${formatExpiry(day)} 15:30:00`;
}

function optionRows(
  history: HistoryService,
  u: SimInstrument,
  day: number,
  reference: number,
  seed: number,
): MasterRow[] {
  const index = u.instrumentType === 'INDEX';
  const dayStartS = istMidnight(day);
  const expiries = expiryList(day, index).filter((e) => expiryInstant(e) > dayStartS);
  const monthly = new Set(expiryList(day, false));
  const step = strikeStep(reference);
  const atm = Math.round(reference / step) * step;
  const rows: MasterRow[] = [];
  for (const expiry of expiries) {
    const date = new Date(expiry * 86_400_000);
    const monthName = MONTHS[date.getUTCMonth()] ?? '';
    for (let k = -STRIKES_EACH_SIDE; k <= STRIKES_EACH_SIDE; k++) {
      const strike = atm + k * step;
      if (strike <= 0) continue;
      for (const call of [true, false]) {
        const side = call ? 'CE' : 'PE';
        const strikeText = String(strike);
        rows.push({
          exchange: exchangeOf(u),
          segment: 'D',
          securityId: history.options.contractId(u, expiry, strike, call),
          instrumentName: index ? 'OPTIDX' : 'OPTSTK',
          expiryCode: 0,
          tradingSymbol: `${u.symbol}-${monthName.charAt(0)}${monthName.slice(1).toLowerCase()}${date.getUTCFullYear()}-${strikeText}-${side}`,
          lotUnits: lotOf(u, seed),
          customSymbol: `${u.symbol} ${String(date.getUTCDate()).padStart(2, '0')} ${monthName} ${strikeText} ${call ? 'CALL' : 'PUT'}`,
          expiryDate: expiryText(expiry),
          strikePrice: strike,
          optionType: side,
          tickSize: 0.05,
          expiryFlag: monthly.has(expiry) ? 'M' : 'W',
          series: '',
          symbolName: u.symbol,
          isin: '',
          underlyingSecurityId: u.securityId,
          underlyingSymbol: u.symbol,
        });
      }
    }
  }
  return rows;
}

/**
 * The list of `day` (an IST day number). Option strikes are centred on the underlying's previous
 * close, so the grid is fixed for the day whatever the price does.
 */
export function masterRows(market: MarketSource, history: HistoryService, day: number): MasterRow[] {
  const rows: MasterRow[] = [];
  const underlyings: SimInstrument[] = [];
  let stockUnderlyings = 0;
  for (const inst of market.universe) {
    rows.push(plainRow(inst));
    if (inst.exchangeSegment === 'IDX_I') underlyings.push(inst);
    else if (inst.exchangeSegment === 'NSE_EQ' && stockUnderlyings < STOCK_OPTION_UNDERLYINGS) {
      underlyings.push(inst);
      stockUnderlyings += 1;
    }
  }
  for (const u of underlyings) {
    const q = market.quote(u.securityId);
    const reference = q && q.prevClose > 0 ? q.prevClose : q?.ltp;
    if (reference === undefined || reference <= 0) continue;
    rows.push(...optionRows(history, u, day, reference, market.seed));
  }
  return rows;
}

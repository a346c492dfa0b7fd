/**
 * The simulated universe: which instruments exist and their static attributes. A pure function of the
 * seed and the INX_EQ count, so the REST and feed halves of the simulator agree on every id.
 *
 * Id ranges keep segments apart and ids unique: indices use their well-known small ids (13 NIFTY,
 * 25 BANKNIFTY, 51 SENSEX...), NSE_EQ ids stay below 100 000, BSE_EQ ids are six-digit 5xxxxx
 * codes, and INX_EQ ids start at 1 000 001.
 */

import { inceptionDateFor, indianSymbolFor, isinFor, tickerFor } from './identifiers.js';
import { hash3, unit3 } from './prng.js';
import type { Instrument } from './types.js';

export const INX_EQ_FIRST_ID = 1_000_001;
export const NSE_EQ_COUNT = 300;
export const BSE_EQ_COUNT = 200;

interface IndexSeed {
  securityId: number;
  symbol: string;
  level: number;
  inceptionDate: string;
}

const INDICES: readonly IndexSeed[] = [
  { securityId: 13, symbol: 'NIFTY', level: 24_350, inceptionDate: '1996-04-22' },
  { securityId: 25, symbol: 'BANKNIFTY', level: 51_800, inceptionDate: '2000-01-03' },
  { securityId: 27, symbol: 'FINNIFTY', level: 23_700, inceptionDate: '2011-09-07' },
  { securityId: 51, symbol: 'SENSEX', level: 80_100, inceptionDate: '1986-01-02' },
  { securityId: 442, symbol: 'MIDCPNIFTY', level: 12_400, inceptionDate: '2008-01-01' },
];

// A few familiar names with their customary exchange codes, so REST examples read naturally; the
// remaining Indian stocks get synthetic names.
const NSE_NAMED: ReadonlyArray<readonly [number, string]> = [
  [2885, 'RELIANCE'],
  [11536, 'TCS'],
  [1594, 'INFY'],
  [1333, 'HDFCBANK'],
  [4963, 'ICICIBANK'],
  [3045, 'SBIN'],
  [1660, 'ITC'],
  [11483, 'LT'],
  [5900, 'AXISBANK'],
  [1922, 'KOTAKBANK'],
  [10604, 'BHARTIARTL'],
  [1394, 'HINDUNILVR'],
  [3456, 'TATAMOTORS'],
  [3787, 'WIPRO'],
  [10999, 'MARUTI'],
];
const BSE_NAMED: ReadonlyArray<readonly [number, string]> = [
  [500325, 'RELIANCE'],
  [532540, 'TCS'],
  [500209, 'INFY'],
  [500180, 'HDFCBANK'],
  [500112, 'SBIN'],
  [500875, 'ITC'],
];

/** Static per-instrument values the live state starts from. */
export interface InstrumentBase {
  /** Price of the previous close, as a whole number of ticks. */
  prevCloseTicks: number;
  /** 1 / tickSize, so a price is `ticks / ticksPerUnit` (an exact decimal, never 0.1 + 0.2 drift). */
  ticksPerUnit: number;
}

export interface BuiltUniverse {
  instruments: Instrument[];
  bases: InstrumentBase[];
}

function logUniform(u: number, low: number, high: number): number {
  return Math.exp(Math.log(low) + u * (Math.log(high) - Math.log(low)));
}

export function buildUniverse(seed: number, inxCount: number): BuiltUniverse {
  const instruments: Instrument[] = [];
  const bases: InstrumentBase[] = [];
  const add = (instrument: Instrument, price: number): void => {
    const ticksPerUnit = Math.round(1 / instrument.tickSize);
    instruments.push(instrument);
    bases.push({ prevCloseTicks: Math.max(1, Math.round(price * ticksPerUnit)), ticksPerUnit });
  };

  for (const index of INDICES) {
    const drift = 1 + (unit3(seed, index.securityId, 1) - 0.5) * 0.04;
    add(
      {
        securityId: index.securityId,
        symbol: index.symbol,
        exchangeSegment: 'IDX_I',
        instrumentType: 'INDEX',
        tickSize: 0.01,
        lotSize: 1,
        inceptionDate: index.inceptionDate,
        isin: '',
      },
      index.level * drift,
    );
  }

  const addIndian = (
    segment: 'NSE_EQ' | 'BSE_EQ',
    named: ReadonlyArray<readonly [number, string]>,
    count: number,
    firstSyntheticId: number,
  ): void => {
    const taken = new Set(named.map(([, symbol]) => symbol));
    const entries: Array<readonly [number, string]> = [...named];
    for (let id = firstSyntheticId; entries.length < count; id++) {
      entries.push([id, indianSymbolFor(seed, id, taken)]);
    }
    for (const [securityId, symbol] of entries) {
      add(
        {
          securityId,
          symbol,
          exchangeSegment: segment,
          instrumentType: 'EQUITY',
          tickSize: 0.05,
          lotSize: 1,
          inceptionDate: inceptionDateFor(seed, securityId),
          isin: isinFor('IN', seed, securityId),
        },
        logUniform(unit3(seed, securityId, 1), 40, 4_000),
      );
    }
  };
  addIndian('NSE_EQ', NSE_NAMED, NSE_EQ_COUNT, 20_001);
  addIndian('BSE_EQ', BSE_NAMED, BSE_EQ_COUNT, 540_001);

  for (let ordinal = 0; ordinal < inxCount; ordinal++) {
    const securityId = INX_EQ_FIRST_ID + ordinal;
    add(
      {
        securityId,
        symbol: tickerFor(seed, ordinal),
        exchangeSegment: 'INX_EQ',
        instrumentType: 'EQUITY',
        tickSize: 0.01,
        lotSize: 1,
        inceptionDate: inceptionDateFor(seed, securityId),
        isin: isinFor('US', seed, securityId),
      },
      logUniform(unit3(seed, securityId, 1), 4, 600),
    );
  }
  return { instruments, bases };
}

/** A deterministic fraction of instruments start without reference values (a fresh listing). */
export function startsWithoutReference(seed: number, securityId: number): boolean {
  return hash3(seed, securityId, 21) % 64 === 0;
}

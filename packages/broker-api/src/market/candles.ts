import { ColumnSet, mergeColumns, type RawColumns } from './columns.js';

export type CandleField = 'open' | 'high' | 'low' | 'close' | 'volume' | 'open_interest';

const REQUIRED: readonly CandleField[] = ['open', 'high', 'low', 'close', 'volume'];
const OPTIONAL: readonly CandleField[] = ['open_interest'];

/** Daily or intraday candles as columns; `open_interest` is present for F&O requests with oi. */
export class Candles extends ColumnSet<CandleField> {
  get open(): Float64Array {
    return this.column('open') as Float64Array;
  }
  get high(): Float64Array {
    return this.column('high') as Float64Array;
  }
  get low(): Float64Array {
    return this.column('low') as Float64Array;
  }
  get close(): Float64Array {
    return this.column('close') as Float64Array;
  }
  get volume(): Float64Array {
    return this.column('volume') as Float64Array;
  }
  get openInterest(): Float64Array | undefined {
    return this.column('open_interest');
  }
}

/** Merges the candle answers of consecutive calls (see mergeColumns for the overlap rule). */
export function candlesFrom(chunks: readonly RawColumns[], route: string): Candles {
  const set = mergeColumns(chunks, REQUIRED, OPTIONAL, route);
  const columns = new Map<CandleField, Float64Array>();
  for (const field of set.fields) columns.set(field, set.column(field) as Float64Array);
  return new Candles(set.timestamp, columns);
}

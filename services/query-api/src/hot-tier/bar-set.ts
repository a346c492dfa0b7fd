/**
 * Bars as columns, with the values BARS_SQL's columns hold (BAR_COLUMNS): time in epoch seconds
 * (DateTime64(0)), open/high/low/close as float32 values, volume (Int64) and trades (UInt64) as
 * integers below 2^53, vwap as a Float64 or null. Whichever tier produced them (memory, or
 * ClickHouse's rows read back for a stitched answer), one writer per format turns them into bytes.
 */
export interface BarSet {
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  vwap: (number | null)[];
  trades: number[];
}

export function emptyBars(): BarSet {
  return { time: [], open: [], high: [], low: [], close: [], volume: [], vwap: [], trades: [] };
}

/** `a` then `b` (times of `b` after those of `a`: the two sides of a window edge). */
export function concatBars(a: BarSet, b: BarSet): BarSet {
  return {
    time: a.time.concat(b.time),
    open: a.open.concat(b.open),
    high: a.high.concat(b.high),
    low: a.low.concat(b.low),
    close: a.close.concat(b.close),
    volume: a.volume.concat(b.volume),
    vwap: a.vwap.concat(b.vwap),
    trades: a.trades.concat(b.trades),
  };
}

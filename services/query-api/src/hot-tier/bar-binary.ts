/**
 * Bars to and from the engine's binary forms:
 * - `BARS_FROM_COLUMNS_SQL`: bars held in JavaScript handed back to the engine as typed array
 *   parameters (vwap as BARS_SQL's if() builds it, down to the NaN under a null), so Arrow and Parquet answers from memory are written by ClickHouse's own writers
 *   from the same column types as BARS_SQL (the query runner's path, byte for byte the same
 *   files). The statement reads no table: only the parameters.
 * - `decodeBarsRowBinary`: BARS_SQL's rows in RowBinary, read back into a BarSet (the ClickHouse
 *   side of an answer stitched at the window's edge).
 */
import { formatFloat32 } from '@feedpipe/codec';
import type { QueryParams } from '@feedpipe/store';
import { type BarSet, emptyBars } from './bar-set.js';

export const BARS_FROM_COLUMNS_SQL = `
SELECT
    toDateTime64(b.1, 0, 'UTC') AS time,
    b.2 AS open, b.3 AS high, b.4 AS low, b.5 AS close,
    b.6 AS volume, if(b.6 > 0, b.7 / (b.6 > 0), NULL) AS vwap, b.8 AS trades
FROM (SELECT arrayJoin(arrayZip({time:Array(UInt32)}, {open:Array(Float32)}, {high:Array(Float32)},
    {low:Array(Float32)}, {close:Array(Float32)}, {volume:Array(Int64)}, {vwap:Array(Float64)},
    {trades:Array(UInt64)})) AS b)`;

/**
 * The parameters of BARS_FROM_COLUMNS_SQL. Float32 values go as their shortest spelling, which
 * reads back to the same float32; Float64 as JavaScript's, which reads back to the same double.
 */
export function barColumnsParams(bars: BarSet): QueryParams {
  return {
    time: bars.time,
    open: bars.open.map((v) => Number(formatFloat32(v))),
    high: bars.high.map((v) => Number(formatFloat32(v))),
    low: bars.low.map((v) => Number(formatFloat32(v))),
    close: bars.close.map((v) => Number(formatFloat32(v))),
    volume: bars.volume,
    // A bar without quantity: BARS_SQL's if() leaves NaN (0 / 0) under the null, which Arrow
    // writes in the value buffer; the statement divides by (volume > 0) to put the same NaN there
    // (x / 1 is x; a NaN can't be a parameter, and the optimiser folds a nested if away).
    vwap: bars.vwap.map((v) => v ?? 0),
    trades: bars.trades,
  };
}

/** Bytes of one bar in RowBinary without / with a VWAP. */
const ROW_NULL_VWAP = 8 + 4 * 4 + 8 + 1 + 8;

/** BARS_SQL's rows (RowBinary) as a BarSet; throws on a body that does not end on a row. */
export function decodeBarsRowBinary(body: Buffer): BarSet {
  const out = emptyBars();
  let at = 0;
  while (at < body.length) {
    if (at + ROW_NULL_VWAP > body.length) throw new Error('bars RowBinary: a row is cut short');
    out.time.push(Number(body.readBigInt64LE(at)));
    out.open.push(body.readFloatLE(at + 8));
    out.high.push(body.readFloatLE(at + 12));
    out.low.push(body.readFloatLE(at + 16));
    out.close.push(body.readFloatLE(at + 20));
    out.volume.push(Number(body.readBigInt64LE(at + 24)));
    at += 32;
    if (body[at] === 1) {
      out.vwap.push(null);
      at += 1;
    } else {
      if (at + 17 > body.length) throw new Error('bars RowBinary: a row is cut short');
      out.vwap.push(body.readDoubleLE(at + 1));
      at += 9;
    }
    out.trades.push(Number(body.readBigUInt64LE(at)));
    at += 8;
  }
  return out;
}

/**
 * The rows of a bars answer in the text formats, written as ClickHouse writes BARS_SQL's rows
 * (JSONEachRow with 64-bit integers unquoted, CSV; instants as ISO 8601 with `Z`), so an answer
 * from memory is byte-for-byte the one ClickHouse gives (test/hot-tier-*.test.ts compares them):
 * Float32 in its shortest round-trip spelling (the codec's), Float64 in JavaScript's (the same
 * shortest spelling for the magnitudes prices and VWAPs have), a null VWAP as null / \N.
 * The envelope around the rows is query/text-bodies.ts's, shared with the folded statements.
 */
import { formatFloat32 } from '@feedpipe/codec';
import { BAR_RESULT_COLUMNS } from '../analytics/bars-sql.js';
import { type RowTextFormat, textBody } from '../query/text-bodies.js';
import type { BarSet } from './bar-set.js';

/** `2024-03-04T09:15:00Z` of epoch seconds. */
export function isoSeconds(sec: number): string {
  return `${new Date(sec * 1000).toISOString().slice(0, 19)}Z`;
}

/** ClickHouse's spelling of a Float64 in the range where JavaScript's agrees (see above). */
function float64(value: number): string {
  return String(value);
}

function jsonRow(bars: BarSet, i: number): string {
  const vwap = bars.vwap[i];
  return `{"time":"${isoSeconds(bars.time[i] as number)}","open":${formatFloat32(bars.open[i] as number)},"high":${formatFloat32(
    bars.high[i] as number,
  )},"low":${formatFloat32(bars.low[i] as number)},"close":${formatFloat32(bars.close[i] as number)},"volume":${
    bars.volume[i]
  },"vwap":${vwap === null || vwap === undefined ? 'null' : float64(vwap)},"trades":${bars.trades[i]}}`;
}

function csvRow(bars: BarSet, i: number): string {
  const vwap = bars.vwap[i];
  return `"${isoSeconds(bars.time[i] as number)}",${formatFloat32(bars.open[i] as number)},${formatFloat32(
    bars.high[i] as number,
  )},${formatFloat32(bars.low[i] as number)},${formatFloat32(bars.close[i] as number)},${bars.volume[i]},${
    vwap === null || vwap === undefined ? '\\N' : float64(vwap)
  },${bars.trades[i]}`;
}

/** Each bar as one row of `format` (without its line end). */
export function barRows(bars: BarSet, format: RowTextFormat): Buffer[] {
  const row = format === 'csv' ? csvRow : jsonRow;
  const out: Buffer[] = new Array(bars.time.length);
  for (let i = 0; i < bars.time.length; i++) out[i] = Buffer.from(row(bars, i));
  return out;
}

/** The whole answer in a text format; `elapsedSec` fills JSON's statistics. */
export function barsTextBody(bars: BarSet, format: RowTextFormat, elapsedSec: number): Buffer {
  return textBody(format, BAR_RESULT_COLUMNS, barRows(bars, format), elapsedSec);
}

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

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
let cachedDay = Number.NaN;
let cachedDate = '';

/**
 * `2024-03-04T09:15:00Z` of epoch seconds. The date part is kept from the last call (a request's
 * bars are on one or two days) and the time built from two-digit strings: a Date and its ISO
 * text per bar were most of an answer's cost.
 */
export function isoSeconds(sec: number): string {
  const secOfDay = ((sec % 86_400) + 86_400) % 86_400;
  const day = sec - secOfDay;
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDate = new Date(day * 1000).toISOString().slice(0, 11);
  }
  const h = Math.floor(secOfDay / 3_600);
  const m = Math.floor((secOfDay % 3_600) / 60);
  return `${cachedDate}${TWO_DIGITS[h]}:${TWO_DIGITS[m]}:${TWO_DIGITS[secOfDay % 60]}Z`;
}

/** Prices repeat (a tick size on a narrow range): their spelling is kept, up to a bound. */
const FLOAT32_TEXT = new Map<number, string>();
const MAX_FLOAT32_TEXT = 65_536;

/** formatFloat32, remembered: four prices a bar were the rest of an answer's cost. */
function float32(value: number): string {
  let text = FLOAT32_TEXT.get(value);
  if (text === undefined) {
    text = formatFloat32(value);
    if (FLOAT32_TEXT.size >= MAX_FLOAT32_TEXT) FLOAT32_TEXT.clear();
    FLOAT32_TEXT.set(value, text);
  }
  return text;
}

/** ClickHouse's spelling of a Float64 in the range where JavaScript's agrees (see above). */
function float64(value: number): string {
  return String(value);
}

/** A bar's columns as BarSet and the kept bars (step-bars.ts) both hold them. */
export interface BarColumns {
  time: ArrayLike<number>;
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
  volume: ArrayLike<number>;
  trades: ArrayLike<number>;
}

/**
 * Bar `i` of `bars` as a row of `format` (ndjson's rows are json's), without its line end, with
 * its VWAP (each holder keeps it its own way).
 */
export function barRowText(format: RowTextFormat, bars: BarColumns, i: number, vwap: number | null): string {
  const time = isoSeconds(bars.time[i] as number);
  const open = float32(bars.open[i] as number);
  const high = float32(bars.high[i] as number);
  const low = float32(bars.low[i] as number);
  const close = float32(bars.close[i] as number);
  const volume = bars.volume[i] as number;
  const trades = bars.trades[i] as number;
  if (format === 'csv') {
    return `"${time}",${open},${high},${low},${close},${volume},${vwap === null ? '\\N' : float64(vwap)},${trades}`;
  }
  return `{"time":"${time}","open":${open},"high":${high},"low":${low},"close":${close},"volume":${volume},"vwap":${
    vwap === null ? 'null' : float64(vwap)
  },"trades":${trades}}`;
}

function rowOf(bars: BarSet, i: number, format: RowTextFormat): string {
  return barRowText(format, bars, i, bars.vwap[i] ?? null);
}

/** Each bar as one row of `format` (without its line end). */
export function barRows(bars: BarSet, format: RowTextFormat): Buffer[] {
  const out: Buffer[] = new Array(bars.time.length);
  for (let i = 0; i < bars.time.length; i++) out[i] = Buffer.from(rowOf(bars, i, format));
  return out;
}

const JSON_HEAD = `{"meta":${JSON.stringify(BAR_RESULT_COLUMNS.map(({ name, type }) => ({ name, type })))},"data":[`;
const CSV_HEAD = `${BAR_RESULT_COLUMNS.map((c) => `"${c.name}"`).join(',')}\n`;

/**
 * The whole answer in a text format, as textBody(format, BAR_RESULT_COLUMNS, barRows(...)) writes
 * it (a unit test holds the two equal), built as one string and encoded once: one Buffer per bar
 * and their concatenation cost more than the rows themselves. `elapsedSec` fills JSON's statistics.
 */
export function barsTextBody(bars: BarSet, format: RowTextFormat, elapsedSec: number): Buffer {
  return rowsTextBody(format, bars.time.length, (i) => rowOf(bars, i, format), elapsedSec);
}

/**
 * The whole answer in a text format from `n` rows given by `rowAt` (written or kept: the hot
 * tier's bars keep each bar's row, see step-bars.ts).
 */
export function rowsTextBody(
  format: RowTextFormat,
  n: number,
  rowAt: (i: number) => string,
  elapsedSec: number,
): Buffer {
  let text = format === 'json' ? JSON_HEAD : format === 'csv' ? CSV_HEAD : '';
  const between = format === 'json' ? ',' : '\n';
  for (let i = 0; i < n; i++) text += (i > 0 ? between : '') + rowAt(i);
  if (format === 'json') text += `],"rows":${n},"statistics":${JSON.stringify({ elapsed: elapsedSec })}}\n`;
  else if (n > 0) text += '\n';
  return Buffer.from(text);
}

/** The reference writer barsTextBody must equal (its test): the shared envelope around barRows. */
export function barsTextBodyViaRows(bars: BarSet, format: RowTextFormat, elapsedSec: number): Buffer {
  return textBody(format, BAR_RESULT_COLUMNS, barRows(bars, format), elapsedSec);
}

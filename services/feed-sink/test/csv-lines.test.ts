import { type FeedRecord, recordToJson } from '@feedpipe/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendCanonical,
  type CanonicalLayout,
  CsvBlock,
  csvString,
  OHLC_LAYOUT,
  rowLine,
  TRADE_LAYOUT,
} from '../src/csv-lines.js';
import { type FeedValue, SINK_TABLES } from '../src/sink-tables.js';
import { TradeQuantities } from '../src/trade-quantities.js';

const cluster = csvString('abc"def');

/** The fast path's line for `text`, or null when it leaves the value to the slow path. */
function fastLine(layout: CanonicalLayout, text: string, partition: number, offset: string): string | null {
  const block = new CsvBlock(16);
  block.append('previous line\n');
  block.source(partition, cluster);
  const before = block.bytes().length;
  // The value read in place, between other bytes (as in a fetch response): nothing past its end counts.
  const value = Buffer.from(`9${text}9`, 'utf8');
  // A trade counts from its instrument's state: each path starts from none (the day's first trade).
  const quantities = new TradeQuantities();
  const taken = appendCanonical(block, layout, value, Number(offset), 1, value.length - 1, quantities);
  const line = block.bytes().subarray(before).toString('latin1');
  expect(block.rows).toBe(taken ? 2 : 1);
  if (!taken) expect(line).toBe('');
  block.recycle();
  return taken ? line : null;
}
const tradeLine = (text: string, partition: number, offset: string) =>
  fastLine(TRADE_LAYOUT, text, partition, offset);
const ohlcLine = (text: string, partition: number, offset: string) =>
  fastLine(OHLC_LAYOUT, text, partition, offset);

/** The fields of a CSV line with quotes removed: what ClickHouse reads from it. */
function fields(line: string): string[] {
  expect(line.endsWith('\n')).toBe(true);
  const out: string[] = [];
  const re = /"((?:[^"]|"")*)"|([^,\n]*)/y;
  let at = 0;
  while (at < line.length - 1) {
    re.lastIndex = at;
    const m = re.exec(line);
    if (!m) throw new Error(`unparsable CSV ${line}`);
    out.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : (m[2] ?? ''));
    at = re.lastIndex + 1;
  }
  return out;
}

const f32 = fc.float({ noNaN: true, noDefaultInfinity: true }).map(Math.fround);
const trade = fc.record({
  type: fc.constant('trade' as const),
  segment: fc.integer({ min: 0, max: 255 }),
  securityId: fc.integer({ min: 0, max: 0x7fffffff }),
  ltp: f32,
  volume: fc.integer({ min: -0x80000000, max: 0x7fffffff }),
  ltt: fc.integer({ min: 0, max: 1_999_999_999 }),
  lut: fc.integer({ min: 0, max: 1_999_999_999 }),
});
const ohlc = fc.record({
  type: fc.constant('ohlc' as const),
  segment: fc.integer({ min: 0, max: 255 }),
  securityId: fc.integer({ min: 0, max: 0x7fffffff }),
  open: f32,
  close: f32,
  high: f32,
  low: f32,
});

function slowLine(kind: 'trades' | 'ohlc', text: string, partition: number, offset: string): string | null {
  const row = SINK_TABLES[kind].toRow(
    JSON.parse(text) as FeedValue,
    partition,
    offset,
    new TradeQuantities(),
  );
  return row ? rowLine(row, cluster) : null;
}

describe('sink CSV lines', () => {
  it('the fast path gives the same fields as parse-and-validate for every record the ingestor writes', () => {
    fc.assert(
      fc.property(
        fc.oneof(trade, ohlc),
        fc.integer({ min: 0, max: 2 ** 53 - 1 }),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (record, receivedAt, partition, offsetNumber) => {
          const text = recordToJson(record as FeedRecord, { receivedAt });
          const offset = String(offsetNumber);
          const kind = record.type === 'trade' ? 'trades' : 'ohlc';
          const fast = (kind === 'trades' ? tradeLine : ohlcLine)(text, partition, offset);
          expect(fast).not.toBeNull();
          const slow = slowLine(kind, text, partition, offset);
          // The one spelling difference: the fast path keeps a float's "-0" (the slow one prints 0).
          const unsigned = (line: string) => fields(line).map((f) => (f === '-0' ? '0' : f));
          expect(unsigned(fast as string)).toEqual(unsigned(slow as string));
          expect(fields(fast as string)).toHaveLength(SINK_TABLES[kind].columns.length);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('leaves every other spelling to the slow path, which still takes what the columns can hold', () => {
    const base = {
      type: 'trade',
      segment: 1,
      securityId: 7,
      ltp: 1.5,
      volume: 2,
      ltt: 3,
      lut: 4,
      receivedAt: 5,
    };
    const spaced = JSON.stringify(base, null, 1);
    expect(tradeLine(spaced, 0, '1')).toBeNull();
    expect(fields(slowLine('trades', spaced, 0, '1') as string)[0]).toBe('7');
    const negativeId = JSON.stringify({ ...base, securityId: -1 });
    expect(tradeLine(negativeId, 0, '1')).toBeNull();
    expect(fields(slowLine('trades', negativeId, 0, '1') as string)[0]).toBe('4294967295');
    const { securityId, ...rest } = base;
    const reordered = JSON.stringify({ securityId, ...rest });
    expect(tradeLine(reordered, 0, '1')).toBeNull();
    // Values no column can hold are invalid, not an insert that fails forever.
    for (const bad of [
      { ...base, volume: 1.5 },
      { ...base, segment: 256 },
      { ...base, ltt: 2 ** 33 },
      { ...base, receivedAt: -1 },
      { ...base, ltp: 'x' },
    ]) {
      const text = JSON.stringify(bad);
      expect(tradeLine(text, 0, '1')).toBeNull();
      expect(slowLine('trades', text, 0, '1')).toBeNull();
    }
    expect(tradeLine(JSON.stringify({ ...base, segment: 300 }), 0, '1')).toBeNull();
    expect(tradeLine(`${JSON.stringify(base)}\n${JSON.stringify(base)}`, 0, '1')).toBeNull();
  });

  it('writes the offset of each line, counted up across carries and written afresh after a gap', () => {
    const text = recordToJson(
      { type: 'trade', segment: 1, securityId: 7, ltp: 1.5, volume: 2, ltt: 3, lut: 4 } as FeedRecord,
      { receivedAt: 5 },
    );
    const value = Buffer.from(text, 'utf8');
    const offsets = [8, 9, 10, 11, 99, 100, 101, 9_999, 10_000, 5, 2 ** 53 - 2, 2 ** 53 - 1];
    const block = new CsvBlock(16);
    block.source(4, cluster);
    const quantities = new TradeQuantities();
    for (const offset of offsets)
      expect(appendCanonical(block, TRADE_LAYOUT, value, offset, 0, value.length, quantities)).toBe(true);
    const lines = block.bytes().toString('latin1').split('\n').slice(0, -1);
    block.recycle();
    expect(lines.map((line) => fields(`${line}\n`).at(-2))).toEqual(offsets.map(String));
    expect(lines.every((line) => fields(`${line}\n`).at(-3) === '4')).toBe(true);
  });
});

/**
 * The writer and the sink agree through @feedpipe/contracts: for every record type, the codec's
 * per-row JSON writer (writeRowJson, what the ingestor puts in Kafka) gives exactly the text the
 * contract's layout implies, the sink's fast path takes it as it is where the type has one, and
 * the sink's parse-and-validate path stores every type.
 */
import {
  ColumnarBatch,
  decodeFramesToColumns,
  encodeFrame,
  MAX_ROW_JSON_BYTES,
  writeRowJson,
} from '@feedpipe/codec';
import {
  FEED_VALUE_FIELDS,
  type FeedRecord,
  type FeedRecordType,
  jsonLiterals,
  RECORD_TYPES,
  TOPIC_KIND_OF_RECORD,
} from '@feedpipe/contracts';
import { describe, expect, it } from 'vitest';
import { appendCanonical, CsvBlock, csvString, rowLine } from '../src/csv-lines.js';
import { SINK_TABLES } from '../src/sink-tables.js';
import { TradeQuantities } from '../src/trade-quantities.js';

/** One record of each type, with values whose JSON spelling is plain (so JSON.stringify gives it). */
const SAMPLES: Record<FeedRecordType, FeedRecord> = {
  trade: {
    type: 'trade',
    segment: 1,
    securityId: 1234,
    ltp: 101.5,
    volume: 700,
    ltt: 1_760_000_000,
    lut: 1_760_000_001,
  },
  ohlc: { type: 'ohlc', segment: 1, securityId: 1234, open: 100.25, close: 99.5, high: 102, low: 98.75 },
  prev_close: { type: 'prev_close', segment: 1, securityId: 1234, prevClose: 97.5 },
  circuit_limit: { type: 'circuit_limit', segment: 1, securityId: 1234, upper: 120, lower: 80.5 },
  week52: { type: 'week52', segment: 1, securityId: 1234, high: 150.25, low: 60 },
  market_status: { type: 'market_status', segment: 1, securityId: 0, marketType: [1, 2, 0], status: 2 },
  error: { type: 'error', segment: 1, securityId: 0, code: 805 },
};
const RECEIVED_AT = 1_760_000_000_123_456;
/** The sample trade's quantity: the instrument's first trade of its day counts its whole volume. */
const QUANTITY = 700;

/** writeRowJson's bytes for `record`, decoded from its wire encoding as the ingestor does. */
function written(record: FeedRecord, quantity = QUANTITY): Buffer {
  const batch = new ColumnarBatch(4);
  decodeFramesToColumns([encodeFrame([record])], batch);
  expect(batch.length).toBe(1);
  const out = new Uint8Array(MAX_ROW_JSON_BYTES);
  const end = writeRowJson(batch, 0, out, 0, RECEIVED_AT, quantity);
  return Buffer.from(out.subarray(0, end));
}

/** The text the contract implies for `record`: literals around the values, in the contract's order. */
function contractText(record: FeedRecord, quantity: number | null = QUANTITY): string {
  const fields = FEED_VALUE_FIELDS[record.type];
  const literals = jsonLiterals(record.type, fields);
  const values = { ...record, receivedAt: RECEIVED_AT, quantity } as Record<string, unknown>;
  return fields.map((f, i) => `${literals[i]}${JSON.stringify(values[f.name])}`).join('') + literals.at(-1);
}

/** The CSV line of `bytes` (a trade value) on the fast path, or undefined when it does not take it. */
function fastLine(bytes: Buffer, quantities = new TradeQuantities()): string | undefined {
  const block = new CsvBlock(64);
  block.source(3, cluster);
  const canonical = SINK_TABLES.trades.canonical;
  if (!canonical) throw new Error('trades have no fast path');
  const taken = appendCanonical(block, canonical, bytes, 42, 0, bytes.length, quantities);
  const line = block.bytes().toString('latin1');
  block.recycle();
  return taken ? line : undefined;
}

const cluster = csvString('cluster-1');

describe('record contract: codec writer and sink', () => {
  it.each(RECORD_TYPES)('%s: the writer gives the contract text and the sink stores it', (type) => {
    const bytes = written(SAMPLES[type]);
    expect(bytes.toString('latin1')).toBe(contractText(SAMPLES[type]));

    const table = SINK_TABLES[TOPIC_KIND_OF_RECORD[type]];
    const row = table.toRow(JSON.parse(bytes.toString('utf8')), 3, '42', new TradeQuantities());
    expect(row).not.toBeNull();
    // Every column but kafka_cluster (appended by the sink to every row).
    expect(row).toHaveLength(table.columns.length - 1);

    if (table.canonical) {
      const block = new CsvBlock(64);
      block.source(3, cluster);
      expect(appendCanonical(block, table.canonical, bytes, 42, 0, bytes.length, new TradeQuantities())).toBe(
        true,
      );
      // The fast line carries the same fields as the slow one (which quotes its text fields).
      const unquoted = (line: string) => line.replaceAll('"', '');
      expect(unquoted(block.bytes().toString('latin1'))).toBe(unquoted(rowLine(row as unknown[], cluster)));
      block.recycle();
    }
  });

  it('takes a trade with its quantity null, and one of feed.trades@1 (no quantity), on the fast path alike', () => {
    const withQuantity = fastLine(written(SAMPLES.trade));
    const unknown = written(SAMPLES.trade, Number.NaN);
    expect(unknown.toString('latin1')).toBe(contractText(SAMPLES.trade, null));
    // The v1 text: the same fields, closed after receivedAt.
    const v1 = Buffer.from(unknown.toString('latin1').replace(',"quantity":null}', '}'), 'latin1');
    expect(JSON.parse(v1.toString('latin1'))).not.toHaveProperty('quantity');
    expect(withQuantity).toBeDefined();
    expect(fastLine(unknown)).toBe(withQuantity);
    expect(fastLine(v1)).toBe(withQuantity);
    // Anything else after receivedAt is not the contract's text: the parse path takes it.
    expect(fastLine(Buffer.from(v1.toString('latin1').replace('}', ',"quantity":-1}')))).toBeUndefined();
    expect(fastLine(Buffer.from(v1.toString('latin1').replace('}', ',"quantity":nul}')))).toBeUndefined();
  });

  it('stores its own quantity and counts a published one that differs, on either path', () => {
    let disagreements = 0;
    const quantities = () => new TradeQuantities(() => disagreements++);
    const wrong = written(SAMPLES.trade, QUANTITY - 1);
    const right = fastLine(written(SAMPLES.trade), quantities());
    expect(fastLine(wrong, quantities())).toBe(right);
    expect(disagreements).toBe(1);
    const row = SINK_TABLES.trades.toRow(JSON.parse(wrong.toString('utf8')), 3, '42', quantities());
    expect(row?.[SINK_TABLES.trades.columns.indexOf('quantity')]).toBe(QUANTITY);
    expect(disagreements).toBe(2);
    fastLine(written(SAMPLES.trade, Number.NaN), quantities());
    expect(disagreements).toBe(2);
  });

  it('gives the fast path to the types whose table stores their fields one for one', () => {
    const fast = RECORD_TYPES.filter((type) => SINK_TABLES[TOPIC_KIND_OF_RECORD[type]].canonical);
    expect(fast).toEqual(['trade', 'ohlc']);
  });
});

/** The record layout contract: complete for every type, and the text it implies. */
import { describe, expect, it } from 'vitest';
import {
  FEED_TABLE_OF_TOPIC,
  FEED_VALUE_FIELDS,
  type FeedRecord,
  jsonLiterals,
  prefixedTopics,
  RECEIVED_AT_FIELD,
  RECORD_FIELD_NAMES,
  RECORD_LAYOUTS,
  RECORD_TYPES,
  readSourceIdentity,
  SOURCE_BYTES,
  TOPIC_KIND_OF_RECORD,
  topicKindOf,
  writeSourceIdentity,
} from '../src/index.js';

/** One record of each type, as the interfaces spell them. */
const SAMPLES: Record<FeedRecord['type'], FeedRecord> = {
  trade: { type: 'trade', segment: 1, securityId: 2, ltp: 3, volume: 4, ltt: 5, lut: 6 },
  ohlc: { type: 'ohlc', segment: 1, securityId: 2, open: 3, close: 4, high: 5, low: 6 },
  prev_close: { type: 'prev_close', segment: 1, securityId: 2, prevClose: 3 },
  circuit_limit: { type: 'circuit_limit', segment: 1, securityId: 2, upper: 3, lower: 4 },
  week52: { type: 'week52', segment: 1, securityId: 2, high: 3, low: 4 },
  market_status: { type: 'market_status', segment: 1, securityId: 2, marketType: [1, 2, 3], status: 4 },
  error: { type: 'error', segment: 1, securityId: 2, code: 805 },
};

describe('record layouts', () => {
  it('name every field of every record type, segment and securityId first', () => {
    expect([...RECORD_TYPES].sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const type of RECORD_TYPES) {
      const names = RECORD_LAYOUTS[type].fields.map((f) => f.name);
      expect(names.slice(0, 2)).toEqual(['segment', 'securityId']);
      expect(['type', ...names].sort()).toEqual(Object.keys(SAMPLES[type]).sort());
      for (const name of names) expect(RECORD_FIELD_NAMES.has(name)).toBe(true);
    }
    expect(RECORD_FIELD_NAMES.has(RECEIVED_AT_FIELD.name)).toBe(false);
  });

  it('imply the canonical text: literals around the fields in order', () => {
    const literals = jsonLiterals('trade', FEED_VALUE_FIELDS.trade);
    expect(literals).toEqual([
      '{"type":"trade","segment":',
      ',"securityId":',
      ',"ltp":',
      ',"volume":',
      ',"ltt":',
      ',"lut":',
      ',"receivedAt":',
      ',"quantity":',
      '}',
    ]);
    // JSON text built from the literals parses back to the record's fields, in order.
    for (const type of RECORD_TYPES) {
      const sample = SAMPLES[type] as unknown as Record<string, unknown>;
      const fields = RECORD_LAYOUTS[type].fields;
      const lits = jsonLiterals(type);
      const text = fields.map((f, i) => `${lits[i]}${JSON.stringify(sample[f.name])}`).join('') + lits.at(-1);
      expect(Object.keys(JSON.parse(text))).toEqual(['type', ...fields.map((f) => f.name)]);
      expect(JSON.parse(text)).toEqual(sample);
    }
  });

  it('map every direct column to a column of its feed table', () => {
    for (const type of RECORD_TYPES) {
      const columns = FEED_TABLE_OF_TOPIC[TOPIC_KIND_OF_RECORD[type]].columns as readonly string[];
      for (const f of FEED_VALUE_FIELDS[type]) {
        if (f.column !== undefined) expect(columns, `${type}.${f.name}`).toContain(f.column);
      }
    }
  });
});

describe('topics', () => {
  it('route record types to their topic kinds, anything unknown to status', () => {
    expect(topicKindOf('trade')).toBe('trades');
    expect(topicKindOf('week52')).toBe('reference');
    expect(topicKindOf('error')).toBe('status');
    expect(topicKindOf('constructor')).toBe('status');
    expect(prefixedTopics('t1').ohlc).toBe('t1.ohlc');
  });
});

describe('source identity header', () => {
  it('round-trips and refuses a value of the wrong length', () => {
    const bytes = new Uint8Array(SOURCE_BYTES);
    const identity = { run: 0xfffffffe, connection: 4, chunk: 123_456, row: 7 };
    writeSourceIdentity(new DataView(bytes.buffer), identity);
    expect(readSourceIdentity(bytes)).toEqual(identity);
    expect(readSourceIdentity(bytes.subarray(1))).toBeUndefined();
  });
});

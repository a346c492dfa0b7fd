/**
 * The published record schemas: the shipped files are exactly what the contracts generate, each
 * names its fp-schema header value as $id, covers every record type and field of its topic with a
 * description, and a standard 2020-12 validator (ajv, strict) compiles it and tells good values
 * from bad ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FEED_SCHEMA_IDS,
  FEED_VALUE_FIELDS,
  GAP_CAUSES,
  GAP_LAYOUT,
  generateRecordSchemas,
  type JsonSchema,
  ORDER_UPDATE_FIELDS,
  ORDER_UPDATE_SCHEMA_ID,
  QUOTE_FIELDS,
  QUOTE_SCHEMA_ID,
  RECORD_SCHEMAS_DIR,
  RECORD_TYPES,
  schemaFileText,
  TOPIC_KIND_OF_RECORD,
  TOPIC_KINDS,
} from '../src/index.js';

const catalog = generateRecordSchemas();
const byId = new Map(catalog.map((e) => [e.id, e]));

function validatorFor(id: string) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const entry of catalog) ajv.addSchema(entry.schema as object);
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`no schema ${id}`);
  return validate;
}

const TRADE = {
  type: 'trade',
  segment: 14,
  securityId: 5001,
  ltp: 101.25,
  volume: 1200,
  ltt: 1717390800,
  lut: 1717390801,
  receivedAt: 1717390801123456,
};

const LEVELS = [1, 2, 3, 4, 5].map((k) => ({ price: 2500 - k * 0.05, quantity: 10 * k, orders: k }));
const QUOTE = {
  securityId: 2885,
  exchangeSegment: 'NSE_EQ',
  polledAt: 1717390801123,
  lastPrice: 2500,
  lastQuantity: 5,
  lastTradeTime: 1717390800,
  averagePrice: 2495.5,
  volume: 120000,
  buyQuantity: 5000,
  sellQuantity: 4000,
  open: 2480,
  high: 2510,
  low: 2470,
  close: 2475,
  netChange: 25,
  upperCircuitLimit: 2722.5,
  lowerCircuitLimit: 2227.5,
  oi: 0,
  oiDayHigh: 0,
  oiDayLow: 0,
  bids: LEVELS,
  asks: LEVELS.map((l) => ({ ...l, price: l.price + 1 })),
};

const ORDER_UPDATE = {
  orderId: '1124060300001',
  kind: 'order',
  status: 'PENDING',
  clientId: '1000000001',
  securityId: '2885',
  exchangeSegment: 'NSE_EQ',
  filledQty: 0,
  remainingQty: 10,
  quantity: 10,
  price: 99,
  averagePrice: 0,
  updateTime: 1717390800000,
  updateTimeIst: '2024-06-03 10:30:00',
  eventKey: 'a'.repeat(64),
  source: 'postback',
  seq: 1,
  receivedAt: 1717390800123000,
  payload: { orderId: '1124060300001', updateTime: '2024-06-03 10:30:00' },
};

describe('record schemas', () => {
  it('ship as generated: one file per schema in packages/contracts/schemas, byte for byte', () => {
    const files = readdirSync(RECORD_SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));
    expect(files.sort()).toEqual(catalog.map((e) => e.fileName).sort());
    for (const entry of catalog) {
      const shipped = readFileSync(join(RECORD_SCHEMAS_DIR, entry.fileName), 'utf8');
      // On failure: run `npx record-schemas` and commit the files.
      expect(shipped, entry.fileName).toBe(schemaFileText(entry.schema));
    }
  });

  it('are identified by the fp-schema header values, one per topic', () => {
    // Every version of a feed topic's schema stays published, the oldest first.
    expect(catalog.map((e) => e.id)).toEqual([
      'feed.trades@1',
      ...TOPIC_KINDS.map((kind) => FEED_SCHEMA_IDS[kind]),
      ORDER_UPDATE_SCHEMA_ID,
      QUOTE_SCHEMA_ID,
    ]);
    expect(FEED_SCHEMA_IDS.trades).toBe('feed.trades@2');
    for (const entry of catalog) {
      expect(entry.schema.$id).toBe(entry.id);
      expect(entry.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(`${entry.name}@${entry.version}`).toBe(entry.id);
    }
    expect(byId.get('feed.reference@1')).toMatchObject({
      topicKind: 'reference',
      defaultTopic: 'feed.reference',
    });
    expect(byId.get('orders.updates@1')).toMatchObject({ topicKind: 'order_updates', version: 1 });
  });

  it('cover every record type of each feed topic and every field in layout order, each described', () => {
    const covered: string[] = [];
    for (const kind of TOPIC_KINDS) {
      const schema = byId.get(FEED_SCHEMA_IDS[kind])?.schema as JsonSchema;
      const defs = schema.$defs as Record<string, JsonSchema>;
      const types = RECORD_TYPES.filter((t) => TOPIC_KIND_OF_RECORD[t] === kind);
      // The status topic also carries the ingestor's own gap records (GAP_LAYOUT), after the feed's.
      const all = kind === 'status' ? [...types, 'gap'] : types;
      expect(Object.keys(defs)).toEqual(all);
      expect(schema.oneOf).toEqual(all.map((t) => ({ $ref: `#/$defs/${t}` })));
      for (const type of types) {
        const properties = defs[type]?.properties as Record<string, JsonSchema>;
        const names = FEED_VALUE_FIELDS[type].map((f) => f.name);
        expect(Object.keys(properties)).toEqual(['type', ...names]);
        // Fields of the first version are required; those a later version added are optional.
        const first = FEED_VALUE_FIELDS[type].filter((f) => f.addedIn === 1).map((f) => f.name);
        expect(defs[type]?.required).toEqual(['type', ...first]);
        for (const [name, property] of Object.entries(properties)) {
          expect(String(property.description).length, `${type}.${name}`).toBeGreaterThan(20);
        }
        covered.push(type);
      }
    }
    expect(covered.sort()).toEqual([...RECORD_TYPES].sort());
    const status = byId.get(FEED_SCHEMA_IDS.status)?.schema as JsonSchema;
    const gap = status.$defs as Record<string, JsonSchema>;
    const gapProperties = gap.gap?.properties as Record<string, JsonSchema>;
    expect(Object.keys(gapProperties)).toEqual(['type', ...GAP_LAYOUT.fields.map((f) => f.name)]);
    expect(gapProperties.cause?.enum).toEqual([...GAP_CAUSES]);
    const order = byId.get(ORDER_UPDATE_SCHEMA_ID)?.schema as JsonSchema;
    expect(Object.keys(order.properties as object)).toEqual(Object.keys(ORDER_UPDATE_FIELDS));
  });

  it('compile under a strict 2020-12 validator and tell good values from bad ones', () => {
    const trades = validatorFor('feed.trades@2');
    expect(trades(TRADE), JSON.stringify(trades.errors)).toBe(true);
    expect(trades({ ...TRADE, ltp: null })).toBe(true);
    expect(trades({ ...TRADE, extra: 1 })).toBe(false);
    expect(trades({ ...TRADE, securityId: '5001' })).toBe(false);
    expect(trades({ ...TRADE, ltt: 1717390800000 })).toBe(false); // milliseconds do not fit int32
    const { receivedAt: _, ...withoutReceivedAt } = TRADE;
    expect(trades(withoutReceivedAt)).toBe(false);
    expect(trades({ ...TRADE, quantity: 25 })).toBe(true);
    expect(trades({ ...TRADE, quantity: null })).toBe(true);
    expect(trades({ ...TRADE, quantity: -1 })).toBe(false);
    expect(trades({ ...TRADE, quantity: 2 ** 31 })).toBe(false);
    expect(trades({ ...TRADE, quantity: '25' })).toBe(false);

    const reference = validatorFor('feed.reference@1');
    const week52 = { type: 'week52', segment: 14, securityId: 7, high: 150, low: 80.25, receivedAt: 1 };
    expect(reference(week52)).toBe(true);
    expect(reference({ ...week52, type: 'circuit_limit' })).toBe(false); // high/low are not its fields
    expect(reference({ ...TRADE })).toBe(false);

    const status = validatorFor('feed.status@1');
    expect(status({ type: 'error', segment: 0, securityId: 0, code: 807, receivedAt: 1 })).toBe(true);
    expect(
      status({
        type: 'market_status',
        segment: 14,
        securityId: 0,
        marketType: [1, 2],
        status: 1,
        receivedAt: 1,
      }),
    ).toBe(false);

    const orders = validatorFor('orders.updates@1');
    expect(orders(ORDER_UPDATE), JSON.stringify(orders.errors)).toBe(true);
    expect(orders({ ...ORDER_UPDATE, updateTime: null })).toBe(true);
    expect(orders({ ...ORDER_UPDATE, updateTime: '2024-06-03 10:30:00' })).toBe(false);
    expect(orders({ ...ORDER_UPDATE, kind: 'bond' })).toBe(false);
    expect(orders({ ...ORDER_UPDATE, eventKey: 'x' })).toBe(false);

    const quotes = validatorFor(QUOTE_SCHEMA_ID);
    expect(Object.keys(byId.get(QUOTE_SCHEMA_ID)?.schema.properties as object)).toEqual(
      Object.keys(QUOTE_FIELDS),
    );
    expect(quotes(QUOTE), JSON.stringify(quotes.errors)).toBe(true);
    expect(quotes({ ...QUOTE, lastTradeTime: null })).toBe(true);
    expect(quotes({ ...QUOTE, lastTradeTime: '01/01/1980 00:00:00' })).toBe(false);
    expect(quotes({ ...QUOTE, bids: [...QUOTE.bids, ...QUOTE.bids] })).toBe(false);
    expect(quotes({ ...QUOTE, asks: [{ price: 1, quantity: -1, orders: 1 }] })).toBe(false);
    expect(quotes({ ...QUOTE, depth: {} })).toBe(false);
  });
});

/**
 * feed.trades@2 added the trade's quantity; a consumer built against feed.trades@1 (its file, its
 * field list) is unharmed: v1 stays published as it was, every field it names keeps its schema in
 * v2, and a tolerant v1 reader (ajv dropping what its schema does not name) reads a v2 record into
 * exactly the v1 record; a v2 reader reads v1 records (the topic holds them until retention).
 */
describe('feed.trades@2, additive over feed.trades@1', () => {
  const v1 = byId.get('feed.trades@1')?.schema as JsonSchema;
  const v2 = byId.get('feed.trades@2')?.schema as JsonSchema;
  const tradeOf = (schema: JsonSchema) => (schema.$defs as Record<string, JsonSchema>).trade as JsonSchema;

  it('keeps every field of v1 with its schema, and adds only quantity, optional', () => {
    const old = tradeOf(v1).properties as Record<string, JsonSchema>;
    const now = tradeOf(v2).properties as Record<string, JsonSchema>;
    const { quantity, ...rest } = now;
    expect(rest).toEqual(old);
    expect(quantity?.type).toEqual(['integer', 'null']);
    expect(tradeOf(v2).required).toEqual(tradeOf(v1).required);
    expect(tradeOf(v1).required).not.toContain('quantity');
  });

  it('a v1 reader reads a v2 record as the v1 record; a v2 reader reads v1 records', () => {
    const tolerantV1 = (() => {
      const ajv = new Ajv2020({ strict: true, removeAdditional: true });
      return ajv.compile(v1 as object);
    })();
    const strictV2 = validatorFor('feed.trades@2');
    const strictV1 = validatorFor('feed.trades@1');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
        (volume, quantity) => {
          const oldRecord = { ...TRADE, volume };
          const newRecord = { ...oldRecord, quantity };
          expect(strictV2(newRecord)).toBe(true);
          expect(strictV2(oldRecord)).toBe(true);
          expect(strictV1(oldRecord)).toBe(true);
          // Without its new field, a v2 record is a valid v1 record, field for field.
          const { quantity: _, ...asV1 } = newRecord;
          expect(strictV1(asV1)).toBe(true);
          const read = structuredClone(newRecord) as Record<string, unknown>;
          expect(tolerantV1(read)).toBe(true);
          expect(read).toEqual(oldRecord);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/**
 * The Kafka data contract, checked the way an outside consumer would: every record that the feed
 * ingestor (live feed from the simulator), `replay` (of the live run's capture and of a capture
 * holding every packet type) and the trading gateway's postback receiver (postbacks from the
 * simulator, hand-posted alert and US-order updates, reconciliation) produce is read back from
 * Kafka and validated by ajv (draft 2020-12, strict) against the shipped schema files of
 * packages/contracts/schemas: the one its `fp-schema` header names, and the one of its topic.
 * Also: no zero-filled "no data yet" packet reaches Kafka (they are counted instead), and the
 * order updates' times are UTC epoch numbers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { BrokerClient, type PlaceOrderRequest } from '@feedpipe/broker-api';
import {
  createRestServer,
  type FeedServer,
  MarketModel,
  type RestServer,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
  startFeedServer,
} from '@feedpipe/broker-sim';
import { CaptureWriter, encodeFrame, type FeedRecord } from '@feedpipe/codec';
import {
  FEED_SCHEMA_IDS,
  type FeedTopics,
  ORDER_UPDATE_SCHEMA_ID,
  prefixedTopics,
  RECORD_SCHEMAS_DIR,
  SCHEMA_HEADER,
  TOPIC_KINDS,
} from '@feedpipe/contracts';
import { createFeedIngestor, type FeedIngestor, replayCapture } from '@feedpipe/feed-ingestor';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { readTopic, type TopicRecord, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { createTradingGateway, type TradingGateway } from '@feedpipe/trading-gateway';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const brokers = inject('kafkaBrokers');
const SIM_CLIENT = { clientId: '1000000001', token: 'sim-token-1000000001', authType: 2 as const };
const SECRET = 'schema-test-postback-secret-0123456789';
const RELIANCE = 2885;

/** The shipped schema files, as a consumer in any language would load them, keyed by $id. */
const ajv = new Ajv2020({ strict: true, allErrors: true });
for (const file of readdirSync(RECORD_SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'))) {
  ajv.addSchema(JSON.parse(readFileSync(join(RECORD_SCHEMAS_DIR, file), 'utf8')) as object);
}

/** Records of one topic from one producer, with the schema id its topic's records must name. */
interface TopicRead {
  producer: 'ingestor' | 'replay' | 'postbacks';
  topic: string;
  schemaId: string;
  records: TopicRecord[];
}

const reads: TopicRead[] = [];
let feed: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let sim: RestServer | undefined;
let gateway: TradingGateway | undefined;
let store: Store | undefined;
let zeroFilledSent = 0;
let noDataYetCounted = 0;

afterAll(async () => {
  await ingestor?.stop().catch(() => undefined);
  await feed?.close().catch(() => undefined);
  await gateway?.stop().catch(() => undefined);
  await sim?.close().catch(() => undefined);
  await store?.close().catch(() => undefined);
});

async function readFeedTopics(producer: TopicRead['producer'], topics: FeedTopics): Promise<void> {
  for (const kind of TOPIC_KINDS) {
    reads.push({
      producer,
      topic: topics[kind],
      schemaId: FEED_SCHEMA_IDS[kind],
      records: await readTopic(brokers, topics[kind]),
    });
  }
}

/** The live feed through the ingestor, recording a capture of what it received. */
async function runIngestor(captureFile: string): Promise<void> {
  const model = new MarketModel({ seed: 31, instruments: 800 });
  const inx = model.universe.filter((i) => i.exchangeSegment === 'INX_EQ');
  // Instruments with reference values and some without (the feed sends those zero-filled first).
  const known = inx.filter((i) => model.hasReference(model.indexOf(i.securityId))).slice(0, 120);
  const pending = inx.filter((i) => !model.hasReference(model.indexOf(i.securityId))).slice(0, 30);
  const ids = [...known, ...pending].map((i) => String(i.securityId));
  feed = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
  const topics = prefixedTopics(uniqueName('schemas-live'));
  ingestor = createFeedIngestor(
    {
      feedUrl: feed.url,
      brokers,
      topics,
      partitions: 2,
      connections: 2,
      instruments: { trade: ids, ohlc: ids.slice(0, 20) },
      workers: 1,
      captureFile,
    },
    {
      credentials: SIM_CLIENT,
      log: () => undefined,
    },
  );
  await ingestor.start();
  const server = feed;
  await waitFor(() => server.stats().subscribedInstruments >= ids.length, 30_000, 'subscriptions');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  server.pause();
  const live = ingestor;
  await waitFor(() => live.stats().frames >= server.stats().messages, 30_000, 'every message received');
  await live.drain();
  await live.stop();
  zeroFilledSent = server.stats().zeroFilled;
  noDataYetCounted = (await live.metrics.noDataYet.get()).values[0]?.value ?? 0;
  await readFeedTopics('ingestor', topics);
}

/** Every packet type once, "no data yet" packets and an error among them, as one capture. */
async function writeEveryTypeCapture(file: string): Promise<void> {
  const records: FeedRecord[] = [
    {
      type: 'trade',
      segment: 14,
      securityId: 5001,
      ltp: 101.25,
      volume: 300,
      ltt: 1717390800,
      lut: 1717390801,
    },
    { type: 'ohlc', segment: 14, securityId: 5001, open: 100, close: 101.25, high: 102, low: 99.5 },
    { type: 'prev_close', segment: 14, securityId: 5001, prevClose: 99.75 },
    { type: 'circuit_limit', segment: 14, securityId: 0, upper: 0, lower: 0 },
    { type: 'week52', segment: 14, securityId: 0, high: 0, low: 0 },
    { type: 'circuit_limit', segment: 14, securityId: 5001, upper: 109.7, lower: 89.8 },
    { type: 'week52', segment: 14, securityId: 5001, high: 140, low: 61.5 },
    { type: 'market_status', segment: 14, securityId: 0, marketType: [1, 0, 0], status: 2 },
    { type: 'trade', segment: 14, securityId: -1, ltp: Number.NaN, volume: 0, ltt: 0, lut: 0 },
  ];
  const writer = await CaptureWriter.open(file);
  writer.write(encodeFrame(records), 1_717_390_801_000_000);
  writer.write(encodeFrame([{ type: 'error', segment: 0, securityId: 0, code: 807 }]), 1_717_390_802_000_000);
  await writer.close();
}

async function runReplays(liveCapture: string): Promise<void> {
  const topics = prefixedTopics(uniqueName('schemas-replay'));
  const handMade = join(tempDir('schemas-capture'), 'every-type.cap');
  await writeEveryTypeCapture(handMade);
  await replayCapture({ file: liveCapture, brokers, topics });
  await replayCapture({ file: handMade, brokers, topics });
  await readFeedTopics('replay', topics);
}

const buy = (over: Partial<PlaceOrderRequest> = {}): PlaceOrderRequest => ({
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  securityId: String(RELIANCE),
  quantity: 10,
  price: 99,
  ...over,
});

async function postUpdate(body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${gateway?.url}/postbacks/orders/${SECRET}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.status;
}

/** Order updates: the simulator's postbacks, hand-posted ones of other kinds, reconciliation. */
async function runPostbacks(): Promise<void> {
  let nowMs = Date.UTC(2024, 5, 3, 5, 0, 0); // Monday 10:30 IST
  const clock = () => nowMs;
  const market = new ScriptedMarket(new MarketModel({ seed: 5, instruments: 10, now: clock }));
  market.setLtp(RELIANCE, 100);
  sim = await createRestServer({
    model: market,
    now: clock,
    rateLimits: false,
    matchIntervalMs: 0,
    matching: { liquidityPerTick: 100 },
    postbacks: { retryBaseMs: 50, retryMaxMs: 400, giveUpAfterMs: 20_000 },
  });
  const account = SIM_TEST_ACCOUNTS[0]!;
  const client = new BrokerClient({
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: account.clientId,
    accessToken: account.webToken!,
    retryBaseDelayMs: 20,
  });
  store = createStore({ dataDir: tempDir('schemas-gateway') });
  await runMigrations(store.internal);
  const table = `market.${uniqueName('order_events')}`;
  await store.internal.command(`CREATE TABLE ${table} AS market.order_events`);
  const topic = uniqueName('orders_updates');
  gateway = await createTradingGateway(
    {
      host: '127.0.0.1',
      port: 0,
      logLevel: false,
      postbacks: { secret: SECRET, walDir: tempDir('schemas-wal'), topic, table, flushIntervalMs: 5 },
    },
    {
      store,
      broker: client,
      kafkaBrokers: brokers,
      logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
    },
  );
  await gateway.start();
  // Placed before the postback URL is registered: only reconciliation records this one.
  await client.orders.place(buy({ quantity: 5, price: 90 }));
  const registered = await fetch(`${sim.baseUrl}/v2/postback`, {
    method: 'POST',
    headers: { 'access-token': account.webToken!, 'content-type': 'application/json' },
    body: JSON.stringify({ postbackUrl: `${gateway.url}/postbacks/orders/${SECRET}` }),
  });
  expect(registered.status).toBe(200);
  const resting = await client.orders.place(buy({ quantity: 250 }));
  await client.orders.place(buy({ orderType: 'MARKET', price: 0, quantity: 150 }));
  await client.orders.list(); // one matching pass
  market.setLtp(RELIANCE, 98.5);
  nowMs += 1_000;
  await client.orders.list();
  await client.orders.cancel(resting.orderId);
  const server = sim;
  await waitFor(
    () => server.postbacks.stats().queued === 0,
    30_000,
    'the simulator to deliver its postbacks',
  );
  expect(
    await postUpdate({ alertId: 'ALERT-1', alertStatus: 'TRIGGERED', triggeredTime: '2024-06-03 10:31:00' }),
  ).toBe(202);
  expect(
    await postUpdate({
      orderId: 'US-1',
      orderStatus: 'TRADED',
      exchangeSegment: 'INX_EQ',
      securityId: '5001',
      quantity: 2.5,
      tradedQty: 2.5,
      avgTradedPrice: 101.5,
      updateTime: '2024-06-03 10:31:02',
    }),
  ).toBe(202);
  expect(await postUpdate({ orderId: 'ODD-1', orderStatus: 'TRANSIT', updateTime: 'not a time' })).toBe(202);
  const receiver = gateway.postbacks!;
  await receiver.pipeline.flush();
  expect((await receiver.reconcile()).added).toBeGreaterThan(0);
  await receiver.pipeline.flush();
  reads.push({
    producer: 'postbacks',
    topic,
    schemaId: ORDER_UPDATE_SCHEMA_ID,
    records: await readTopic(brokers, topic),
  });
}

beforeAll(async () => {
  const liveCapture = join(tempDir('schemas-live-capture'), 'live.cap');
  await runIngestor(liveCapture);
  await runReplays(liveCapture);
  await runPostbacks();
}, 240_000);

/** `record` against schema `id`: '' when valid, else where and why. */
function problemsOf(id: string, read: TopicRead, record: TopicRecord): string {
  const validate = ajv.getSchema(id);
  if (!validate) return `${read.topic}@${record.offset}: no schema ${id}`;
  if (validate(record.value)) return '';
  return `${read.topic}@${record.offset} ${JSON.stringify(record.value)}: ${ajv.errorsText(validate.errors)}`;
}

const all = (producer: TopicRead['producer']) =>
  reads.filter((r) => r.producer === producer).flatMap((r) => r.records.map((record) => record.value));

describe('Kafka records against the published schemas (ajv, 2020-12)', () => {
  it('produced every record type, every order-update kind and source', () => {
    const types = (producer: TopicRead['producer']) => new Set(all(producer).map((v) => v.type));
    // (A market status joins them when the real clock crosses a session change during the run.)
    expect([...types('ingestor')]).toEqual(
      expect.arrayContaining(['circuit_limit', 'ohlc', 'prev_close', 'trade', 'week52']),
    );
    expect([...types('replay')].sort()).toEqual([
      'circuit_limit',
      'error',
      'market_status',
      'ohlc',
      'prev_close',
      'trade',
      'week52',
    ]);
    const updates = all('postbacks');
    expect(new Set(updates.map((v) => v.kind))).toEqual(new Set(['order', 'alert', 'us_order']));
    expect(new Set(updates.map((v) => v.source))).toEqual(new Set(['postback', 'reconcile']));
  });

  it('every value validates against the schema of its topic', () => {
    const problems = reads.flatMap((read) =>
      read.records.map((record) => problemsOf(read.schemaId, read, record)).filter((p) => p !== ''),
    );
    expect({ count: problems.length, first: problems.slice(0, 10) }).toEqual({ count: 0, first: [] });
    expect(reads.reduce((n, r) => n + r.records.length, 0)).toBeGreaterThan(1_000);
  });

  it('every record names its schema in the fp-schema header and validates against the schema it names', () => {
    const problems: string[] = [];
    for (const read of reads) {
      for (const record of read.records) {
        const named = record.headers[SCHEMA_HEADER]?.toString();
        if (named !== read.schemaId) {
          problems.push(`${read.producer} ${read.topic}@${record.offset}: ${SCHEMA_HEADER} = ${named}`);
          continue;
        }
        const problem = problemsOf(named, read, record);
        if (problem) problems.push(problem);
      }
    }
    expect({ count: problems.length, first: problems.slice(0, 10) }).toEqual({ count: 0, first: [] });
  });

  it('publishes no zero-filled "no data yet" reference packet, counting them instead', () => {
    expect(zeroFilledSent).toBeGreaterThan(0);
    expect(noDataYetCounted).toBe(zeroFilledSent);
    for (const read of reads.filter((r) => r.schemaId === FEED_SCHEMA_IDS.reference)) {
      expect(read.records.filter((r) => r.value.securityId === 0)).toEqual([]);
      expect(read.records.filter((r) => r.key === '0')).toEqual([]);
    }
    // The hand-made capture's real values of 5001 came through; its zero-filled ones did not.
    const replayed = all('replay').filter((v) => v.securityId === 5001);
    expect(replayed.filter((v) => v.type === 'circuit_limit')).toHaveLength(1);
  });

  it("carries order-update times as UTC epoch numbers, the service's IST text only beside them", () => {
    const updates = all('postbacks');
    expect(updates.length).toBeGreaterThan(8);
    for (const v of updates) {
      const ist = String(v.updateTimeIst);
      const expected = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(ist)
        ? Date.parse(`${ist.replace(' ', 'T')}+05:30`)
        : null;
      expect(v.updateTime, `${v.orderId} ${ist}`).toBe(expected);
      expect(Number.isInteger(v.receivedAt) && (v.receivedAt as number) > Date.UTC(2024, 0, 1) * 1000).toBe(
        true,
      );
    }
    expect(updates.find((v) => v.orderId === 'ALERT-1')?.updateTime).toBe(Date.UTC(2024, 5, 3, 5, 1, 0));
    expect(updates.find((v) => v.orderId === 'ODD-1')?.updateTime).toBeNull();
  });
});

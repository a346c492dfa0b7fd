/**
 * The quote poller against the simulator with its rate limits on: requests of at most 1,000
 * instruments, every quote published (keyed by security id, with its schema header) and stored in
 * market.quotes with five depth levels a side, and a second client of the same account (the
 * gateway's quote calls) sharing the one limiter without a single throttled answer.
 */
import { sharedQuoteLimiter } from '@feedpipe/broker-api';
import {
  createRestServer,
  INSTRUMENT_MASTER_PATHS,
  MarketModel,
  type RestServer,
  SIM_TEST_ACCOUNTS,
} from '@feedpipe/broker-sim';
import { generateRecordSchemas, QUOTE_SCHEMA_ID } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createQuotePollerMetrics,
  QuotePoller,
  type QuotePublisher,
  quoteClient,
  quoteRequest,
} from '../src/index.js';
import { tradeTimeOf } from '../src/quotes/quote-records.js';

const ACCOUNT = SIM_TEST_ACCOUNTS[0];
let sim: RestServer;
let store: Store;
let ids: number[];

beforeAll(async () => {
  sim = await createRestServer({ model: new MarketModel({ seed: 4, instruments: 10 }) });
  store = createStore({ dataDir: tempDir('quote-poller') });
  await runMigrations(store.internal);
  // 2,500 NSE instruments of the simulator's list: stocks first, then option contracts.
  const csv = await (await fetch(`${sim.baseUrl}${INSTRUMENT_MASTER_PATHS.compact}`)).text();
  ids = csv
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .filter((f) => f[0] === 'NSE' && (f[1] === 'E' || f[1] === 'D'))
    .map((f) => Number(f[2]));
});
afterAll(async () => {
  await store?.close();
  await sim?.close();
});

describe('quote poller', () => {
  it('polls in batches of 1,000, publishes and stores every quote, sharing the limiter without a 429', async () => {
    const broker = { baseUrl: sim.baseUrl, clientId: ACCOUNT!.clientId };
    const token = ACCOUNT!.webToken!;
    const stocks = ids.slice(0, 300);
    const options = ids.slice(300, 2_500);
    const registry = new Registry();
    const metrics = createQuotePollerMetrics(registry);
    // One limiter per account: the poller's client and the "gateway's" client both pace through it.
    // The simulator shares this process's event loop with the poller's writes, so a request can be
    // taken in tens of ms after it was sent: the margin covers that (bench:quotes runs the
    // simulator in a process of its own, with the default margin).
    const limiter = sharedQuoteLimiter(60);
    let throttled = 0;
    const client = quoteClient(broker, token, limiter, metrics, () => {
      throttled += 1;
    });
    const published: Array<{
      topic: string;
      key?: string;
      value: unknown;
      headers?: Record<string, string>;
    }> = [];
    const publisher: QuotePublisher = {
      async send(topic, records) {
        for (const r of records) published.push({ topic, ...r });
      },
    };
    const poller = new QuotePoller(
      { instruments: quoteRequest({ NSE_EQ: stocks, NSE_FNO: options }), maxRounds: 2 },
      { client, publisher, store: store.internal, registry, metrics },
    );
    expect(poller.requestsPerRound).toBe(3);
    const gatewayRegistry = new Registry();
    const gateway = quoteClient(broker, token, limiter, createQuotePollerMetrics(gatewayRegistry), () => {
      throttled += 1;
    });
    const gatewayCalls = (async () => {
      for (let i = 0; i < 2; i++) await gateway.marketData.quote({ NSE_EQ: [2885, 11536] });
    })();
    const started = Date.now();
    const [stats] = await Promise.all([poller.run(), gatewayCalls]);
    const seconds = (Date.now() - started) / 1000;
    expect(stats).toMatchObject({
      requests: 6,
      failedRequests: 0,
      quotes: 5_000,
      rounds: 2,
      pendingWrites: 0,
    });
    expect(throttled).toBe(0);
    // Eight quote requests at 1/s: the first at once, the last seven a second apart at least.
    expect(seconds).toBeGreaterThanOrEqual(7);

    expect(published).toHaveLength(5_000);
    const validate = new Ajv2020({ strict: true }).compile(
      generateRecordSchemas().find((e) => e.id === QUOTE_SCHEMA_ID)?.schema as object,
    );
    for (const p of published.slice(0, 50)) {
      expect(p.topic).toBe('feed.quotes');
      expect(p.headers).toEqual({ 'fp-schema': QUOTE_SCHEMA_ID });
      expect(validate(p.value), JSON.stringify(validate.errors)).toBe(true);
      expect(p.key).toBe(String((p.value as { securityId: number }).securityId));
    }

    const [row] = await store.internal.rows<Record<string, unknown>>(
      `SELECT count() AS n, uniqExact(security_id) AS ids, min(length(bid_price)) AS minBids,
              max(length(ask_orders)) AS maxAsks, countIf(exchange_segment = 'NSE_FNO') AS options
       FROM market.quotes`,
    );
    expect(row).toEqual({ n: 5_000, ids: 2_500, minBids: 5, maxAsks: 5, options: 4_400 });
    const [reliance] = await store.internal.rows<Record<string, unknown>>(
      `SELECT bid_price[1] < ask_price[1] AS spreadPositive, arraySort(bid_price) = arrayReverse(bid_price) AS bestFirst
       FROM market.quotes WHERE security_id = 2885 LIMIT 1`,
    );
    expect(reliance).toEqual({ spreadPositive: 1, bestFirst: 1 });
  });

  it('reads the service trade time in IST and the untraded placeholder as none', () => {
    expect(tradeTimeOf('03/06/2024 15:29:59')).toBe(Date.UTC(2024, 5, 3, 9, 59, 59) / 1000);
    expect(tradeTimeOf('01/01/1980 00:00:00')).toBeNull();
    expect(tradeTimeOf('2024-06-03 15:29:59')).toBeNull();
  });
});

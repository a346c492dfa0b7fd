/**
 * `npm run bench:quotes`: does the quote poller keep the quote category (1 request/s) saturated over
 * 5,000 Indian instruments without a single 429, while the gateway's own quote calls share the
 * account's budget through the same limiter? The REST simulator runs with its limits on in a child
 * process (its own event loop, as the service is another machine); here the poller publishes every
 * quote to a local Kafka broker (feed.quotes) and stores it in embedded chDB, and a second client of
 * the same account, built as the gateway builds its own, asks for a quote every few seconds through
 * the same limiter (npm start hands both the one limiter, docs/quotes.md).
 *
 * Flags: --seconds <n> (default 60, 10..3600), --instruments <n> (default 5000), --gateway-every <s>
 * (seconds between the gateway's quote calls, default 10), --margin <ms> (the shared limiter's
 * margin, default 8), --kafka off (store only). Progress on stderr; the last stdout line is
 * {"bench":"quotes","seconds":...,"requests":...,"rate":...,"limit":1,"utilisation":...,"throttled":0,...}.
 * `utilisation` is every quote request (poller and gateway) per second of the run over the
 * category's 1/s; `pollerShare` the poller's part of them.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { INSTRUMENT_MASTER_PATHS, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { contractTopics, DEFAULT_QUOTES_TOPIC } from '@feedpipe/contracts';
import {
  createQuotePollerMetrics,
  DEFAULT_QUOTE_MARGIN_MS,
  QuotePoller,
  type QuotePublisher,
  quoteClient,
  quoteRequest,
  sharedQuoteLimiter,
} from '@feedpipe/history-loader';
import { JsonProducer, KafkaAdmin } from '@feedpipe/kafka-client';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { createStore, runMigrations } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { intFlag } from './support/flags.js';
import { serveRestSim, startRestSim } from './support/rest-sim-child.js';

const SEED = 7;

/** The first `count` NSE instruments of the simulator's published list: stocks, then options. */
async function nseInstruments(
  baseUrl: string,
  count: number,
): Promise<{ NSE_EQ: number[]; NSE_FNO: number[] }> {
  const csv = await (await fetch(`${baseUrl}${INSTRUMENT_MASTER_PATHS.compact}`)).text();
  const out = { NSE_EQ: [] as number[], NSE_FNO: [] as number[] };
  for (const line of csv.trimEnd().split('\n').slice(1)) {
    const [exchange, segment, id] = line.split(',');
    if (out.NSE_EQ.length + out.NSE_FNO.length >= count) break;
    if (exchange !== 'NSE') continue;
    if (segment === 'E') out.NSE_EQ.push(Number(id));
    else if (segment === 'D') out.NSE_FNO.push(Number(id));
  }
  if (out.NSE_EQ.length + out.NSE_FNO.length < count)
    throw new Error(`the simulator lists fewer than ${count} NSE instruments`);
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      role: { type: 'string' },
      seconds: { type: 'string' },
      instruments: { type: 'string' },
      'gateway-every': { type: 'string' },
      margin: { type: 'string' },
      kafka: { type: 'string' },
    },
  });
  if (values.role === 'sim') return serveRestSim(SEED);
  const seconds = intFlag(values.seconds, 60, 'seconds', 10, 3600);
  const count = intFlag(values.instruments, 5_000, 'instruments', 1, 6_000);
  const gatewayEvery = intFlag(values['gateway-every'], 10, 'gateway-every', 2, 600);
  const margin = intFlag(values.margin, DEFAULT_QUOTE_MARGIN_MS, 'margin', 0, 1_000);
  const withKafka = values.kafka !== 'off';
  const account = SIM_TEST_ACCOUNTS[0];
  if (account === undefined) throw new Error('no simulator test account');

  const { child, baseUrl, token } = await startRestSim(fileURLToPath(import.meta.url));
  const workDir = tempDir('bench-quotes');
  const store = createStore({ dataDir: workDir });
  let kafka: LocalKafka | undefined;
  let producer: JsonProducer | undefined;
  try {
    if (withKafka) {
      process.stderr.write('bench:quotes: starting a local Kafka broker...\n');
      kafka = await startLocalKafka({ dataDir: tempDir('bench-quotes-kafka'), heap: '512m' });
      const topic = contractTopics().find((t) => t.name === DEFAULT_QUOTES_TOPIC);
      await KafkaAdmin.ensureTopicsOnce(kafka.brokers, [DEFAULT_QUOTES_TOPIC], {
        partitions: topic?.partitions,
      });
      producer = new JsonProducer({ brokers: kafka.brokers, clientId: 'bench-quotes' });
    }
    await runMigrations(store.internal);
    const instruments = await nseInstruments(baseUrl, count);
    const broker = { baseUrl, clientId: account.clientId, accessToken: token };

    // The account's one limiter, handed to the poller's client and to the "gateway's".
    const limiter = sharedQuoteLimiter(margin);
    const sends: number[] = [];
    let throttled = 0;
    const registry = new Registry();
    const metrics = createQuotePollerMetrics(registry);
    const poller = new QuotePoller(
      { instruments: quoteRequest(instruments), maxSeconds: seconds },
      {
        client: quoteClient(broker, limiter, metrics, () => {
          throttled += 1;
        }),
        ...(producer ? { publisher: producer satisfies QuotePublisher } : {}),
        store: store.internal,
        registry,
        metrics,
      },
    );
    const gatewayMetrics = createQuotePollerMetrics(new Registry());
    const gateway = quoteClient(broker, limiter, gatewayMetrics, () => {
      throttled += 1;
    });
    // Every send of either client, from the limiter's grants: what the service sees per second.
    const timed = limiter.acquire.bind(limiter);
    limiter.acquire = async (...args: Parameters<typeof limiter.acquire>) => {
      const release = await timed(...args);
      if (args[0] === 'quote') sends.push(Date.now());
      return release;
    };
    let gatewayCalls = 0;
    let gatewayFailures = 0;
    const started = Date.now();
    const stopGateway = new AbortController();
    const gatewayLoop = (async () => {
      // Bounded by the run's length: one call per gatewayEvery seconds.
      while (!stopGateway.signal.aborted && Date.now() - started < seconds * 1000) {
        await new Promise((r) => setTimeout(r, gatewayEvery * 1000));
        if (stopGateway.signal.aborted || Date.now() - started >= seconds * 1000) break;
        try {
          await gateway.marketData.quote({ NSE_EQ: [2885, 11536] }, stopGateway.signal);
          gatewayCalls += 1;
        } catch {
          gatewayFailures += 1;
        }
      }
    })();
    process.stderr.write(
      `bench:quotes: ${count} instruments (${poller.requestsPerRound} requests a round), ${seconds} s, gateway every ${gatewayEvery} s, margin ${margin} ms, kafka ${withKafka ? 'on' : 'off'}\n`,
    );
    const progress = setInterval(() => {
      const s = poller.stats();
      process.stderr.write(
        `  ${s.requests} poller requests, ${gatewayCalls} gateway, 429: ${throttled}, quotes ${s.quotes}\n`,
      );
    }, 10_000);
    const stats = await poller.run();
    stopGateway.abort();
    await gatewayLoop;
    clearInterval(progress);
    const [stored] = await store.internal.rows<{ n: number | string }>(
      'SELECT count() AS n FROM market.quotes',
    );
    const first = sends[0] ?? started;
    const last = sends[sends.length - 1] ?? first;
    const requests = sends.length;
    // Rate between the first and the last send: n - 1 intervals.
    const rate = last > first ? (requests - 1) / ((last - first) / 1000) : 0;
    const result = {
      bench: 'quotes',
      seconds,
      instruments: count,
      requests,
      pollerRequests: stats.requests,
      gatewayRequests: gatewayCalls,
      gatewayFailures,
      rate: Number(rate.toFixed(4)),
      limit: 1,
      utilisation: Number(rate.toFixed(4)),
      pollerShare: requests > 0 ? Number((stats.requests / requests).toFixed(4)) : 0,
      throttled,
      failedRequests: stats.failedRequests,
      quotes: stats.quotes,
      rounds: stats.rounds,
      stored: Number(stored?.n ?? 0),
      kafka: withKafka,
      marginMs: margin,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await producer?.close();
    await store.close();
    await kafka?.stop();
    child.disconnect();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:quotes failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

/**
 * `npm run bench:quotes`: does the quote poller keep the quote category (1 request/s) saturated over
 * 5,000 Indian instruments without a single 429, while the gateway's own quote calls share the
 * account's budget through the same limiter? The REST simulator runs with its limits on in a child
 * process (its own event loop, as the service is another machine); here the poller publishes every
 * quote to a local Kafka broker (feed.quotes) and stores it in embedded chDB, and the gateway's
 * quote calls, a process of their own as in compose, ask for a quote every few seconds. The two
 * processes share the account's quote slots through files in one share directory (FileRateSlots,
 * as SVC_TOKEN_SHARE_DIR does for the loader's and the gateway's CLIs).
 *
 * Flags: --seconds <n> (default 60, 10..3600), --instruments <n> (default 5000), --gateway-every <s>
 * (seconds between the gateway's quote calls, default 10), --margin <ms> (the shared limiter's
 * margin, default 8), --client-nice=<n> (the poller's and the gateway's processes at nice n where
 * permitted; default: as started), --kafka off (store only), --trace (every send's stages on
 * stderr, not only the latest). Progress on stderr; the last stdout line is
 * {"bench":"quotes","seconds":...,"requests":...,"rate":...,"limit":1,"utilisation":...,"throttled":0,...}
 * (`throttled`: 429 answers to either process).
 * `utilisation` is every quote request (poller and gateway) per second of the run over the
 * category's 1/s; `pollerShare` the poller's part of them. `lateMs` is each send's lateness against
 * its due time (the send before it plus the window plus the margin) and `stagesMs` where it went
 * (support/quote-lateness.ts); `nice` the processes' priorities (the simulator's raised where
 * permitted, else `simulatorRefused` says why).
 */
import { rmSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_QUOTE_MARGIN_MS, sharedQuoteLimiter } from '@feedpipe/broker-api';
import { INSTRUMENT_MASTER_PATHS, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { contractTopics, DEFAULT_QUOTES_TOPIC } from '@feedpipe/contracts';
import { FileRateSlots } from '@feedpipe/credentials';
import {
  createQuotePollerMetrics,
  QuotePoller,
  type QuotePublisher,
  quoteClient,
  quoteRequest,
} from '@feedpipe/history-loader';
import { JsonProducer, KafkaAdmin } from '@feedpipe/kafka-client';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { createStore, runMigrations } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { intFlag } from './support/flags.js';
import { hasMemoryDir, memoryTempDir } from './support/memory-dir.js';
import { renice, startedNicer } from './support/priority.js';
import { serveQuoteGateway, startQuoteGateway } from './support/quote-gateway-child.js';
import { quantile, sendLateness } from './support/quote-lateness.js';
import { type QuoteSend, recordQuoteSends } from './support/quote-sends.js';
import { type QuoteArrival, quoteArrivals, serveRestSim, startRestSim } from './support/rest-sim-child.js';

const SEED = 7;
/** The simulator's priority where permitted: ahead of every process at the default 0. */
const SIMULATOR_NICE = -10;

const sorted = (values: number[]): number[] => values.sort((a, b) => a - b);

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

/**
 * On stderr, the sends that left latest after their due time (every send with --trace, in order),
 * with their stages relative to the due time.
 */
function reportLatest(
  sends: readonly QuoteSend[],
  fromGateway: ReadonlySet<QuoteSend>,
  arrivals: readonly QuoteArrival[],
  arrivalLags: readonly number[],
  marginMs: number,
  all: boolean,
): void {
  const rows = sends.slice(1).map((s, i) => {
    const due = (sends[i]?.sentAt ?? s.sentAt) + 1000 + marginMs;
    const by = fromGateway.has(s) ? 'gateway' : 'poller';
    const after = fromGateway.has(sends[i] as QuoteSend) ? 'gateway' : 'poller';
    return {
      late: s.sentAt - due,
      text: `${by} after ${after}: asked ${s.askedAt - due}, limiter due ${s.dueAt - due}, granted ${s.grantedAt - due} (GC ${s.grantGcMs.toFixed(1)}), written ${s.sentAt - due} (event loop on CPU ${s.writeCpuMs.toFixed(1)}, waiting for a core ${s.writeRunQueueMs.toFixed(1)}, GC ${s.writeGcMs.toFixed(1)}), reached the service ${arrivalLags[i + 1]} ms after its send (its GC before the stamp ${arrivals[i + 1]?.gcBeforeMs.toFixed(1)}${arrivals[i + 1]?.allowed === false ? ', refused' : ''}), at ${s.sentAt}`,
    };
  });
  if (!all) rows.sort((a, b) => b.late - a.late);
  for (const row of all ? rows : rows.slice(0, 8)) process.stderr.write(`  late send: ${row.text}\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      role: { type: 'string' },
      seconds: { type: 'string' },
      instruments: { type: 'string' },
      'gateway-every': { type: 'string' },
      margin: { type: 'string' },
      'client-nice': { type: 'string' },
      kafka: { type: 'string' },
      trace: { type: 'boolean' },
    },
  });
  if (values.role === 'sim') return serveRestSim(SEED);
  if (values.role === 'gateway') return serveQuoteGateway();
  const seconds = intFlag(values.seconds, 60, 'seconds', 10, 3600);
  const count = intFlag(values.instruments, 5_000, 'instruments', 1, 6_000);
  const gatewayEvery = intFlag(values['gateway-every'], 10, 'gateway-every', 2, 600);
  const margin = intFlag(values.margin, DEFAULT_QUOTE_MARGIN_MS, 'margin', 0, 1_000);
  const withKafka = values.kafka !== 'off';
  const account = SIM_TEST_ACCOUNTS[0];
  if (account === undefined) throw new Error('no simulator test account');

  const { child, baseUrl, token } = await startRestSim(fileURLToPath(import.meta.url));
  // The service is another machine: its clock stamps arrivals without waiting for our processes.
  // Here it shares two cores with the benchmark and with whatever else runs, and a stamp that waits
  // for a core makes two arrivals look closer than their sends were (arrivalCreepMs). So it runs
  // ahead of everything (nice SIMULATOR_NICE, which needs root or CAP_SYS_NICE); where that is
  // refused, everything the benchmark starts after it yields to it instead (nice +5, no privilege
  // needed), the poller included. The broker and the store's engine, helpers standing for other
  // machines too, are started at +5 either way, so their bursts (a JVM's GC, a merge) yield to the
  // poller, which runs at the nice it was given, as a deployment would run it.
  const simulator = renice(child.pid ?? 0, SIMULATOR_NICE);
  if (simulator.refused !== undefined) setPriority(Math.min(19, getPriority() + 5));
  const workDir = tempDir('bench-quotes');
  const store = createStore({ dataDir: workDir });
  let kafka: LocalKafka | undefined;
  let producer: JsonProducer | undefined;
  let shareDir: string | undefined;
  try {
    const helpers = await startedNicer(5, async () => {
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
    });
    // Off by default: the poller and the gateway run as a deployment would. Given, it shows how much
    // of the lateness is the shared machine's load (a higher priority where permitted).
    const clientNice =
      values['client-nice'] === undefined
        ? undefined
        : renice(process.pid, intFlag(values['client-nice'], 0, 'client-nice', -20, 19));
    const instruments = await nseInstruments(baseUrl, count);
    const broker = { baseUrl, clientId: account.clientId };

    // The account's quote slots, shared by this process (the poller) and the gateway's.
    // On a memory file system where there is one, as an operator would put SVC_TOKEN_SHARE_DIR: a
    // claim is a few file creations and renames, which on a disk others write to can wait behind its
    // journal (with the files on ext4, --trace showed grants and writes stalled 20-40 ms off CPU and
    // off the run queue; in /dev/shm such stalls were rarer, not gone).
    shareDir = memoryTempDir('bench-quotes-share');
    const limiter = sharedQuoteLimiter(margin, new FileRateSlots(shareDir, account.clientId, ['quote']));
    const paced: QuoteSend[] = [];
    let throttled = 0;
    const registry = new Registry();
    const metrics = createQuotePollerMetrics(registry);
    const poller = new QuotePoller(
      { instruments: quoteRequest(instruments), maxSeconds: seconds },
      {
        client: quoteClient(broker, token, limiter, metrics, () => {
          throttled += 1;
        }),
        ...(producer ? { publisher: producer satisfies QuotePublisher } : {}),
        store: store.internal,
        registry,
        metrics,
      },
    );
    // Every send of the poller (the gateway reports its own).
    const countGc = recordQuoteSends(paced);
    const started = Date.now();
    const gateway = startQuoteGateway(fileURLToPath(import.meta.url), {
      baseUrl,
      clientId: account.clientId,
      token,
      shareDir,
      seconds,
      everySeconds: gatewayEvery,
      marginMs: margin,
    });
    process.stderr.write(
      `bench:quotes: ${count} instruments (${poller.requestsPerRound} requests a round), ${seconds} s, gateway every ${gatewayEvery} s, margin ${margin} ms, kafka ${withKafka ? 'on' : 'off'}\n`,
    );
    const progress = setInterval(() => {
      const s = poller.stats();
      process.stderr.write(`  ${s.requests} poller requests, 429: ${throttled}, quotes ${s.quotes}\n`);
    }, 10_000);
    const stats = await poller.run();
    const gatewayReport = await gateway.report;
    clearInterval(progress);
    countGc();
    const fromGateway = new Set(gatewayReport.sends);
    paced.push(...gatewayReport.sends);
    paced.sort((a, b) => a.sentAt - b.sentAt);

    const sends = paced.map((s) => s.sentAt);
    const [stored] = await store.internal.rows<{ n: number | string }>(
      'SELECT count() AS n FROM market.quotes',
    );
    const first = sends[0] ?? started;
    const last = sends[sends.length - 1] ?? first;
    const requests = sends.length;
    // Rate between the first and the last send: n - 1 intervals.
    const rate = last > first ? (requests - 1) / ((last - first) / 1000) : 0;
    // Time between consecutive sends as this side saw them: the service counted each one later
    // by the link's and its own delays, which the margin covers.
    const gaps = sorted(sends.slice(1).map((t, i) => t - (sends[i] ?? t)));
    // How much later after its send each request reached the service than the one before it did:
    // a negative creep (the earlier request the later one) shortens the gap the service sees, and
    // the margin has to cover it. Sends and arrivals pair up in order (one request at a time).
    const arrivals = await quoteArrivals(child);
    const lateness = arrivals.map((a, i) => a.at - (sends[i] ?? a.at));
    reportLatest(paced, fromGateway, arrivals, lateness, margin, values.trace === true);
    const creep = sorted(lateness.slice(1).map((l, i) => l - (lateness[i] ?? l)));
    const result = {
      bench: 'quotes',
      seconds,
      instruments: count,
      requests,
      pollerRequests: stats.requests,
      gatewayRequests: gatewayReport.calls,
      gatewayFailures: gatewayReport.failures,
      rate: Number(rate.toFixed(4)),
      limit: 1,
      utilisation: Number(rate.toFixed(4)),
      pollerShare: requests > 0 ? Number((stats.requests / requests).toFixed(4)) : 0,
      throttled: throttled + gatewayReport.throttled,
      failedRequests: stats.failedRequests,
      quotes: stats.quotes,
      rounds: stats.rounds,
      stored: Number(stored?.n ?? 0),
      kafka: withKafka,
      nice: {
        simulator: simulator.nice,
        ...(simulator.refused === undefined ? {} : { simulatorRefused: simulator.refused }),
        poller: getPriority(),
        ...(clientNice?.refused === undefined ? {} : { pollerRefused: clientNice.refused }),
        helpers: helpers.nice,
      },
      marginMs: margin,
      shareDirInMemory: hasMemoryDir(),
      gapMs: {
        min: quantile(gaps, 0),
        p50: quantile(gaps, 0.5),
        p90: quantile(gaps, 0.9),
        max: quantile(gaps, 1),
      },
      // Arrival gap minus send gap, per pair: below -margin the service refuses.
      arrivalCreepMs: {
        min: quantile(creep, 0),
        p01: quantile(creep, 0.01),
        p50: quantile(creep, 0.5),
        max: quantile(creep, 1),
      },
      ...sendLateness(paced, 1000, margin),
      arrivals: arrivals.length,
      refusedArrivals: arrivals.filter((a) => !a.allowed).length,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    // In memory: what is left there holds memory until the machine restarts.
    if (shareDir !== undefined) rmSync(shareDir, { recursive: true, force: true });
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

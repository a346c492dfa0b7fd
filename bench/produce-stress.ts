/**
 * npm run bench:produce-stress -- [--runs 20] [--seconds 5] [--instruments 5000] [--rate 6]
 *                                  [--faults 8] [--no-sink]
 *
 * Exactly once into Kafka and ClickHouse, checked the hard way, many times over (issue #23): each run
 * takes fresh topics (the ingestor creates them), 5 connections whose subscription snapshots are
 * produced at once, retriable produce errors injected on the first --faults produce requests by a
 * proxy in front of the broker (partitions answered "not leader" while the rest of the request was
 * appended, and answers lost although the broker appended), and one connection aborted mid-run.
 * Every record is read back: per record its source identity must be unique (no copy in Kafka), per
 * instrument the trades in Kafka must be exactly the distinct trades the simulator sent, each once
 * and in order (see checkKafka for why a repeated snapshot is not one of them); then the sink
 * stores the topic into embedded ClickHouse and the same is checked there. Each run is bounded by
 * --seconds of feed plus bounded waits; the local broker and the store are shared by all runs.
 * Progress on stderr; the last stdout line is the JSON result.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { FEED_TABLES, prefixedTopics, SOURCE_HEADER } from '@feedpipe/contracts';
import { createFeedIngestor } from '@feedpipe/feed-ingestor';
import { createSink } from '@feedpipe/feed-sink';
import { type ReadRecord, readTopic } from '@feedpipe/kafka-client';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { startKafkaFaultProxy, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '5' },
    instruments: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '6' },
    faults: { type: 'string', default: '8' },
    'no-sink': { type: 'boolean', default: false },
  },
});

function bounded(name: string, raw: string | undefined, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`--${name} must be in ${min}..${max}`);
  return value;
}

const runs = bounded('runs', values.runs, 1, 200);
const seconds = bounded('seconds', values.seconds, 1, 120);
const instrumentCount = bounded('instruments', values.instruments, 10, 25_000);
const tradesPerSecond = bounded('rate', values.rate, 0.1, 100);
const faults = bounded('faults', values.faults, 0, 1_000);
const withSink = !values['no-sink'];
const log = (m: string) => process.stderr.write(`bench:produce-stress: ${m}\n`);

const SIM_CLIENT = { clientId: '1000000001', token: 'sim-token-1000000001', authType: 2 as const };

interface RunResult {
  /** Trade packets the simulator queued, snapshots that repeat a trade included. */
  sent: number;
  /** Distinct trades among them: what Kafka and the store must hold once each. */
  sentDistinct: number;
  inKafka: number;
  kafkaCopies: number;
  /** A trade produced again from another packet (a repeated snapshot the repeat guard let through). */
  kafkaRepeats: number;
  kafkaMissing: number;
  outOfOrder: number;
  stored: number;
  storedDuplicates: number;
  storedRepeats: number;
  storedMissing: number;
  faultsInjected: number;
  producerResets: number;
  reconnects: number;
}

/**
 * Kafka: copies by source identity, repeated, missing and out-of-order trades per instrument.
 *
 * A trade is its instrument's (cumulative volume, trade time): the volume grows with every trade, so
 * two packets with the same pair carry the same trade. The feed answers every (re)subscription with
 * a snapshot, the instrument's last trade; after the aborted connection resubscribes, that snapshot
 * repeats a trade the old socket delivered and the ingestor produced, and the repeat guard
 * (services/feed-ingestor/src/pipeline/trade-memory.ts) rightly drops it. Counted against every
 * packet queued (`sentFor().trade`), each run showed exactly the aborted connection's 1,000
 * instruments "missing": each the resubscription snapshot, equal to the trade queued just before
 * it on the old socket and present in Kafka. So the expected count is the simulator's distinct
 * trades (`sentFor().distinctTrade`, which skips a packet repeating the one queued before it for
 * the instrument), and Kafka's side is counted in distinct trades too: a fresh trade dropped still
 * shows as missing, and a repeat produced (a record under a new source identity carrying a trade
 * already in the topic) is counted as a repeat instead of filling the place of a lost trade.
 */
function checkKafka(server: FeedServer, ids: readonly number[], trades: ReadRecord[]) {
  const identities = new Set<string>();
  let copies = 0;
  let repeats = 0;
  const volumes = new Map<number, number[]>();
  const seen = new Map<number, Set<string>>();
  for (const r of trades) {
    const source = r.headers.get(SOURCE_HEADER)?.toString('hex') ?? `offset:${r.partition}:${r.offset}`;
    if (identities.has(source)) {
      copies += 1;
      continue;
    }
    identities.add(source);
    const value = JSON.parse(r.value?.toString('utf8') ?? 'null') as {
      securityId: number;
      volume: number;
      ltt: number;
    };
    let known = seen.get(value.securityId);
    if (!known) {
      known = new Set();
      seen.set(value.securityId, known);
    }
    const trade = `${value.volume}:${value.ltt}`;
    if (known.has(trade)) {
      repeats += 1;
      continue;
    }
    known.add(trade);
    let list = volumes.get(value.securityId);
    if (!list) {
      list = [];
      volumes.set(value.securityId, list);
    }
    list.push(value.volume);
  }
  let missing = 0;
  let outOfOrder = 0;
  for (const id of ids) {
    const list = volumes.get(id) ?? [];
    missing += Math.max(0, server.sentFor(id).distinctTrade - list.length);
    for (let i = 1; i < list.length; i++) if ((list[i] as number) < (list[i - 1] as number)) outOfOrder += 1;
  }
  return { copies, repeats, missing, outOfOrder };
}

async function count(store: Store, query: string): Promise<number> {
  const [row] = await store.internal.rows<{ n: number | string }>(query);
  return Number(row?.n);
}

async function oneRun(
  run: number,
  brokers: string[],
  model: MarketModel,
  ids: number[],
  store: Store | undefined,
): Promise<RunResult> {
  const server = await startFeedServer({ model, port: 0, tradesPerSecond, tickIntervalMs: 20 });
  const topics = prefixedTopics(uniqueName(`stress${run}`));
  const proxy = await startKafkaFaultProxy(brokers[0] as string, {
    topics: [topics.trades, topics.reference],
    requests: faults,
  });
  const ingestor = createFeedIngestor(
    {
      feedUrl: server.url,
      brokers: [proxy.address],
      topics,
      partitions: 6,
      connections: 5,
      maxSubscriptionsPerConnection: Math.ceil(ids.length / 5),
      instruments: { trade: ids.map(String) },
      workers: 2,
    },
    {
      credentials: SIM_CLIENT,
      log: () => undefined,
    },
  );
  try {
    await ingestor.start();
    await waitFor(() => server.stats().subscribedInstruments >= ids.length, 30_000, 'subscriptions');
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 2));
    const victim = server.listConnections()[run % 5];
    if (victim) server.faults.abort(victim.id);
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 2));
    await waitFor(
      () => server.listConnections().reduce((s, c) => s + c.tradeSubscriptions, 0) >= ids.length,
      30_000,
      'the aborted connection to resubscribe',
    );
    server.pause();
    await waitFor(() => ingestor.stats().frames >= server.stats().messages, 60_000, 'every message received');
    await ingestor.drain();
    const stats = ingestor.stats();
    const trades = await readTopic({ brokers }, topics.trades, 120_000);
    const kafka = checkKafka(server, ids, trades);
    const sent = ids.reduce((s, id) => s + server.sentFor(id).trade, 0);
    const sentDistinct = ids.reduce((s, id) => s + server.sentFor(id).distinctTrade, 0);
    const result: RunResult = {
      sent,
      sentDistinct,
      inKafka: trades.length,
      kafkaCopies: kafka.copies,
      kafkaRepeats: kafka.repeats,
      kafkaMissing: kafka.missing,
      outOfOrder: kafka.outOfOrder,
      stored: 0,
      storedDuplicates: 0,
      storedRepeats: 0,
      storedMissing: 0,
      faultsInjected: Object.values(proxy.injected).reduce((n, k) => n + k, 0),
      producerResets: stats.producerResets,
      reconnects: stats.connections.reduce((s, c) => s + c.reconnects, 0),
    };
    if (store) {
      await store.internal.command(`TRUNCATE TABLE ${FEED_TABLES.ticks.name}`);
      const sink = createSink(
        {
          brokers,
          groupId: uniqueName('stress-sink'),
          topics,
          maxBatchAgeMs: 200,
        },
        {
          store,
          log: () => undefined,
        },
      );
      await sink.start();
      await waitFor(() => sink.stats().consumed >= trades.length, 120_000, 'the sink to read every trade');
      await sink.flush();
      await sink.stop();
      result.stored = await count(store, `SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`);
      // A copy is the same decoded packet twice (same receive time); a repeat is the same trade
      // from two packets; missing is against the distinct trades sent, as in checkKafka.
      const packets = await count(
        store,
        `SELECT uniqExact(security_id, volume, received_at) AS n FROM ${FEED_TABLES.ticks.name}`,
      );
      const distinct = await count(
        store,
        `SELECT uniqExact(security_id, volume, ltt) AS n FROM ${FEED_TABLES.ticks.name}`,
      );
      result.storedDuplicates = result.stored - packets;
      result.storedRepeats = packets - distinct;
      result.storedMissing = Math.max(0, sentDistinct - distinct);
    }
    return result;
  } finally {
    await ingestor.stop().catch(() => undefined);
    await server.close().catch(() => undefined);
    await proxy.close().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const dataDir = tempDir('produce-stress-kafka');
  const kafka = await startLocalKafka({ dataDir: join(dataDir, 'kafka'), heap: '768m' });
  const store = withSink ? createStore({ dataDir: tempDir('produce-stress-store') }) : undefined;
  if (store) await runMigrations(store.internal);
  const model = new MarketModel({ seed: 23, instruments: Math.max(instrumentCount * 2, 100) });
  const ids = model.universe
    .filter((i) => i.exchangeSegment === 'INX_EQ')
    .slice(0, instrumentCount)
    .map((i) => i.securityId);
  const totals = {
    runs: 0,
    failed_runs: 0,
    sent: 0,
    sent_distinct: 0,
    kafka_copies: 0,
    kafka_repeats: 0,
    kafka_missing: 0,
    out_of_order: 0,
  };
  const sinkTotals = { stored: 0, stored_duplicates: 0, stored_repeats: 0, stored_missing: 0 };
  const extra = { faults_injected: 0, producer_resets: 0, reconnects: 0 };
  try {
    for (let run = 0; run < runs; run++) {
      const r = await oneRun(run, kafka.brokers, model, ids, store);
      totals.runs += 1;
      totals.sent += r.sent;
      totals.sent_distinct += r.sentDistinct;
      totals.kafka_copies += r.kafkaCopies;
      totals.kafka_repeats += r.kafkaRepeats;
      totals.kafka_missing += r.kafkaMissing;
      totals.out_of_order += r.outOfOrder;
      sinkTotals.stored += r.stored;
      sinkTotals.stored_duplicates += r.storedDuplicates;
      sinkTotals.stored_repeats += r.storedRepeats;
      sinkTotals.stored_missing += r.storedMissing;
      extra.faults_injected += r.faultsInjected;
      extra.producer_resets += r.producerResets;
      extra.reconnects += r.reconnects;
      const bad =
        r.kafkaCopies +
          r.kafkaRepeats +
          r.kafkaMissing +
          r.outOfOrder +
          r.storedDuplicates +
          r.storedRepeats +
          r.storedMissing >
        0;
      if (bad) totals.failed_runs += 1;
      log(`run ${run + 1}/${runs}: ${JSON.stringify(r)}`);
    }
  } finally {
    await store?.close();
    await kafka.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    JSON.stringify({
      bench: 'produce-stress',
      seconds,
      instruments: ids.length,
      trades_per_instrument_s: tradesPerSecond,
      connections: 5,
      ...totals,
      ...(withSink ? sinkTotals : {}),
      ...extra,
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:produce-stress: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

/**
 * One run of issue #35's scenario, shared by the test (test/reconnect-resubscribe.test.ts) and the
 * stress benchmark (bench/reconnect-stress.ts): the ingestor against the spec-only feed server
 * (spec-feed-server.ts, in a process of its own), which answers every subscribe request at once with
 * the snapshot and streams to the just-subscribed instruments; one connection is dropped abnormally
 * once everything streams, the ingestor reconnects and re-subscribes (rule 6), and the run ends once
 * the re-subscribed connection has streamed for a while. Then the topics are read back and judged
 * per instrument: every trade sent (sequences 1..last, all sent on open, subscribed connections) in
 * Kafka once and in order, every snapshot decoded and produced, no frame left undecoded.
 *
 * Every wait is bounded; a wait that runs out does not throw but shows in the verdict (what was
 * missing is what the caller asserts on).
 */
import { prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor, type FeedIngestor } from '@feedpipe/feed-ingestor';
import { type ReadRecord, readTopic } from '@feedpipe/kafka-client';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import type { Registry } from 'prom-client';
import { type RemoteSpecFeed, startSpecFeedProcess } from './spec-feed-remote.js';

export interface ReconnectScenarioOptions {
  brokers: string[];
  /** Feed connections of the ingestor, 1..5. Default 2. */
  connections?: number;
  /** Instruments per connection (100 per subscribe request). Default 300. */
  instrumentsPerConnection?: number;
  /** Trades per 5 ms tick of each connection's instruments beyond its first 100 (which get 400/s each). Default 20. */
  tradesPerTick?: number;
  /** Trades the server sends before the drop, and again after the re-subscription. Default 20,000. */
  tradesPerPhase?: number;
  /** One packet per WebSocket message. Default false. */
  packetPerMessage?: boolean;
  /** The server's reference packets once per instrument, zero-filled on re-subscription (spec-feed-server.ts). */
  referencesOnce?: boolean;
  /** The server's answer carries each instrument's first new trade after its snapshot. */
  tradeWithSnapshot?: boolean;
  /** Where progress goes. Default: nowhere. */
  log?: (message: string) => void;
}

export interface ReconnectVerdict {
  instruments: number;
  /** Trades sent (each instrument's sequences 1..last). */
  tradesSent: number;
  /** Trades read back from Kafka. */
  tradesInKafka: number;
  /** Sent trades missing from Kafka. */
  holes: number;
  /** Trades in Kafka more than once (or never sent). */
  doubled: number;
  /** Trades in Kafka after a later sequence of their instrument. */
  reordered: number;
  /** Instruments with a hole, a copy or a reordering; the first few, described. */
  badInstruments: string[];
  /** Snapshots sent (an instrument's answer to one subscription). */
  snapshotsSent: number;
  /** Previous Close packets decoded by the ingestor (one per snapshot). */
  snapshotsDecoded: number;
  /** Previous Close records in Kafka that match a snapshot sent. */
  snapshotsInKafka: number;
  /** Repeated snapshot trades the ingestor recognised and did not produce again. */
  repeatsDropped: number;
  /** ingestor_frames_undecoded_total, every reason; undefined when the ingestor has no such counter. */
  framesUndecoded: number | undefined;
  /** Messages the server wrote and the ingestor's count of messages received. */
  messagesSent: number;
  messagesReceived: number;
  reconnects: number;
  drops: number;
  /** Receive-to-ack latency of the slowest frame, ms (a connection's queue held back shows here). */
  receiveToAckMaxMs: number;
  seconds: number;
}

const CLIENT_ID = '1000000035';
const WAIT_MS = 30_000;
const POLL_MS = 20;

/** The value of a counter of the registry summed over its labels (optionally one label value). */
async function counterValue(
  registry: Registry,
  name: string,
  label?: [string, string],
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  return values.filter((v) => !label || v.labels[label[0]] === label[1]).reduce((sum, v) => sum + v.value, 0);
}

/** Waits without throwing: false when `check` did not come true in time. */
async function waitSoftly(check: () => boolean | Promise<boolean>, what: string): Promise<boolean> {
  try {
    await waitFor(check, WAIT_MS, what, POLL_MS);
    return true;
  } catch {
    return false;
  }
}

interface TradeCheck {
  holes: number;
  doubled: number;
  reordered: number;
  tradesInKafka: number;
  bad: string[];
}

/** Per instrument: the volumes (sequence numbers) in Kafka against 1..last sent. */
function judgeTrades(ids: readonly number[], last: readonly number[], trades: ReadRecord[]): TradeCheck {
  const byId = new Map<number, number[]>();
  for (const record of trades) {
    const value = JSON.parse(record.value?.toString() ?? '{}') as { securityId: number; volume: number };
    const list = byId.get(value.securityId) ?? [];
    if (list.length === 0) byId.set(value.securityId, list);
    list.push(value.volume);
  }
  const check: TradeCheck = { holes: 0, doubled: 0, reordered: 0, tradesInKafka: trades.length, bad: [] };
  ids.forEach((id, i) => {
    const sent = last[i] ?? 0;
    const seen = new Uint8Array(sent + 1);
    let doubled = 0;
    let reordered = 0;
    let highest = 0;
    for (const volume of byId.get(id) ?? []) {
      if (volume < 1 || volume > sent || seen[volume] === 1) doubled += 1;
      else seen[volume] = 1;
      if (volume < highest) reordered += 1;
      highest = Math.max(highest, volume);
    }
    let holes = 0;
    let firstHole = 0;
    for (let seq = 1; seq <= sent; seq++) {
      if (seen[seq] === 1) continue;
      holes += 1;
      if (firstHole === 0) firstHole = seq;
    }
    check.holes += holes;
    check.doubled += doubled;
    check.reordered += reordered;
    if ((holes > 0 || doubled > 0 || reordered > 0) && check.bad.length < 10)
      check.bad.push(
        `${id}: sent 1..${sent}, ${holes} missing (first ${firstHole}), ${doubled} doubled, ${reordered} reordered`,
      );
  });
  return check;
}

/** Previous Close records in Kafka per instrument, up to the snapshots sent of it. */
function snapshotsIn(ids: readonly number[], sent: readonly number[], reference: ReadRecord[]): number {
  const count = new Map<number, number>();
  for (const record of reference) {
    const value = JSON.parse(record.value?.toString() ?? '{}') as { type: string; securityId: number };
    if (value.type === 'prev_close') count.set(value.securityId, (count.get(value.securityId) ?? 0) + 1);
  }
  return ids.reduce((sum, id, i) => sum + Math.min(count.get(id) ?? 0, sent[i] ?? 0), 0);
}

/** Lets the server send `trades` more trades. */
async function streamFor(server: RemoteSpecFeed, trades: number): Promise<void> {
  const target = (await server.state()).stats.trades + trades;
  await waitSoftly(async () => (await server.state()).stats.trades >= target, `${trades} trades`);
}

/** The feed: subscribed, streaming, one connection dropped, re-subscribed, streaming again. */
async function drive(
  server: RemoteSpecFeed,
  ingestor: FeedIngestor,
  connections: number,
  total: number,
  tradesPerPhase: number,
  log: (message: string) => void,
): Promise<number> {
  const everything = async (): Promise<boolean> => {
    const state = await server.state();
    return state.open === connections && state.subscribed === total;
  };
  await ingestor.start();
  if (!(await waitSoftly(everything, 'every subscription'))) log('not everything subscribed');
  await streamFor(server, tradesPerPhase);
  await server.drop(0);
  if (!(await waitSoftly(everything, 're-subscription'))) log('not re-subscribed in time');
  await streamFor(server, tradesPerPhase);
  const sent = (await server.pause()).messages;
  if (!(await waitSoftly(() => ingestor.stats().frames >= sent, 'every message received')))
    log(`received ${ingestor.stats().frames} of ${sent} messages`);
  await ingestor.drain();
  return sent;
}

export async function runReconnectScenario(options: ReconnectScenarioOptions): Promise<ReconnectVerdict> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const connections = options.connections ?? 2;
  const perConnection = options.instrumentsPerConnection ?? 300;
  const ids = Array.from({ length: connections * perConnection }, (_, i) => 3_500_001 + i);
  const server = await startSpecFeedProcess({
    tradesPerTick: options.tradesPerTick ?? 20,
    packetPerMessage: options.packetPerMessage,
    referencesOnce: options.referencesOnce,
    tradeWithSnapshot: options.tradeWithSnapshot,
  });
  const topics = prefixedTopics(uniqueName('reconnect35'));
  const ingestor = createFeedIngestor(
    {
      feedUrl: server.url,
      brokers: options.brokers,
      topics,
      partitions: 2,
      connections,
      instruments: { trade: ids.map(String) },
    },
    {
      credentials: { clientId: CLIENT_ID, token: 'spec-token', authType: 2 },
      log: (m) => log(`ingestor: ${m}`),
    },
  );
  try {
    const messagesSent = await drive(
      server,
      ingestor,
      connections,
      ids.length,
      options.tradesPerPhase ?? 20_000,
      log,
    );
    const [trades, reference, sequences, state] = await Promise.all([
      readTopic({ brokers: options.brokers, clientId: 'reconnect-scenario' }, topics.trades, WAIT_MS),
      readTopic({ brokers: options.brokers, clientId: 'reconnect-scenario' }, topics.reference, WAIT_MS),
      server.sequences(ids),
      server.state(),
    ]);
    const check = judgeTrades(ids, sequences.last, trades);
    const ingested = ingestor.stats();
    return {
      instruments: ids.length,
      tradesSent: state.stats.trades,
      tradesInKafka: check.tradesInKafka,
      holes: check.holes,
      doubled: check.doubled,
      reordered: check.reordered,
      badInstruments: check.bad,
      snapshotsSent: state.stats.snapshots,
      snapshotsDecoded:
        (await counterValue(ingestor.registry, 'ingestor_packets_total', ['type', 'prev_close'])) ?? 0,
      snapshotsInKafka: snapshotsIn(ids, sequences.snapshots, reference),
      repeatsDropped: ingested.repeatedTrades,
      framesUndecoded: await counterValue(ingestor.registry, 'ingestor_frames_undecoded_total'),
      messagesSent,
      messagesReceived: ingested.frames,
      reconnects: ingested.connections.reduce((sum, c) => sum + c.reconnects, 0),
      drops: state.stats.drops,
      receiveToAckMaxMs: Math.round(ingestor.latency.percentileMs(1)),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await ingestor.stop().catch(() => undefined);
    await server.close();
  }
}

/**
 * The live pipeline on a local Kafka cluster, for bench:cluster and the cluster tests: the
 * simulator in load mode (own process) -> feed ingestor (this process) -> a KRaft cluster of N
 * brokers (replication factor 3, min ISR 2) -> a group of sink members in one process (own process,
 * one shared embedded ClickHouse) -> ClickHouse.
 *
 * In load mode every trade adds one lot, so per instrument the volume is an independent sequence:
 * stored rows minus unique (instrument, volume) pairs are duplicates, trades sent minus unique
 * stored are losses, and volumes that do not rise with the Kafka offset are order violations.
 *
 * A sampler records the ingestor's Kafka acknowledgements and the sink's inserts every 250 ms, so
 * a fault's effect reads as the gaps in those two counters (see recovery.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor, type FeedIngestor } from '@feedpipe/feed-ingestor';
import { type LocalKafkaCluster, startLocalKafkaCluster } from '@feedpipe/local-kafka';
import { EMBEDDED_ENGINE_ALLOCATOR_ENV } from '@feedpipe/store';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import type { Sample } from './recovery.js';

export interface ClusterPipelineOptions {
  brokers: number;
  rate: number;
  instruments: number;
  connections: number;
  /** Sink members at the start. */
  members: number;
  /** Partitions of the feed topics. */
  partitions: number;
  /** Heap per broker JVM. */
  heap?: string;
  log: (message: string) => void;
}

export interface GroupCounts {
  rows: number;
  unique: number;
  /** Instruments stored from more than one partition. */
  split: number;
  /** Instruments whose volumes do not rise with the Kafka offset. */
  unordered: number;
  members: number;
  /** Records the sink dropped as copies (a producer reset re-appended them) / skipped as stored. */
  copies: number;
  replayed: number;
}

export interface ClusterPipeline {
  readonly cluster: LocalKafkaCluster;
  readonly ingestor: FeedIngestor;
  readonly tradesTopic: string;
  readonly topics: string[];
  readonly samples: readonly Sample[];
  resume(): void;
  pause(): void;
  sentTrades(): Promise<number>;
  /** Sends a command to the sink group and waits for the answer of `type`. */
  sink<T>(cmd: string, type: string): Promise<T>;
  /** SIGKILLs the sink group right after its next insert (before the commit) and waits for the death. */
  killSinkMidBatch(timeoutMs: number): Promise<void>;
  /** Starts the sink group again on the same ClickHouse data (after a kill). */
  restartSink(): Promise<void>;
  /** Waits until the ingestor got all that was sent and Kafka acknowledged it, then until the sink stored it. */
  settle(timeoutMs: number): Promise<{ sent: number; counts: GroupCounts }>;
  close(): Promise<void>;
}

interface Ready {
  url: string;
  ids: number[];
}

function ask<T>(child: ChildProcess, cmd: string, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = () => {
      child.off('message', onMessage);
      reject(new Error(`the process exited before answering ${cmd}`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ cmd });
  });
}

function forkTs(file: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  return fork(new URL(file, import.meta.url), args, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(env ? { env } : {}),
  });
}

function waitMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the process exited (${code}) before ${type}`)));
  });
}

function closeChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.send({ cmd: 'close' });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startClusterPipeline(options: ClusterPipelineOptions): Promise<ClusterPipeline> {
  const workDir = tempDir('cluster-pipeline');
  // The brokers' logs in memory when it is there: the pipeline is measured, not the virtual disk.
  const kafkaDir = existsSync('/dev/shm')
    ? mkdtempSync(join('/dev/shm', 'feedpipe-cluster-'))
    : join(workDir, 'kafka');
  options.log(`starting a ${options.brokers}-broker Kafka cluster in ${kafkaDir}...`);
  const cluster = await startLocalKafkaCluster({
    dataDir: kafkaDir,
    nodes: options.brokers,
    heap: options.heap ?? '512m',
    segmentBytes: 64 * 1024 * 1024,
    retentionBytesPerPartition: 256 * 1024 * 1024,
  });
  const sim = forkTs('./sim-process.ts', [String(options.instruments), String(options.rate)]);
  const ready = await waitMessage<Ready>(sim, 'ready');
  const prefix = uniqueName('cluster');
  const feedTopics = prefixedTopics(prefix);
  const groupId = `${prefix}-sink`;
  const sinkArgs = [
    cluster.brokers.join(','),
    prefix,
    groupId,
    join(workDir, 'chdb'),
    String(options.members),
  ];
  const sinkEnv = process.env.CLICKHOUSE_URL
    ? process.env
    : { ...process.env, ...EMBEDDED_ENGINE_ALLOCATOR_ENV };
  const ingestor = createFeedIngestor(
    {
      feedUrl: ready.url,
      brokers: cluster.brokers,
      topics: feedTopics,
      partitions: options.partitions,
      connections: options.connections,
      instruments: { trade: ready.ids.slice(0, options.instruments).map(String) },
      workers: 2,
    },
    {
      credentials: { clientId: '1000000001', token: 'sim-token-1000000001', authType: 2 },
      log: options.log,
    },
  );
  // The ingestor creates the topics (broker defaults: replication factor 3); the sink joins after.
  await ingestor.start();
  let sinkGroup = forkTs('./sink-group-process.ts', sinkArgs, sinkEnv);
  await waitMessage(sinkGroup, 'ready');

  const samples: Sample[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const inserted = await ask<{ inserted: number }>(sinkGroup, 'inserted', 'inserted')
        .then((m) => m.inserted)
        .catch(() => samples.at(-1)?.inserted ?? 0);
      samples.push({ at: Date.now(), acked: ingestor.stats().producedTrades, inserted });
      await sleep(250);
    }
  })();

  const sentTrades = async () => (await ask<{ trades: number }>(sim, 'stats', 'stats')).trades;
  return {
    cluster,
    ingestor,
    tradesTopic: feedTopics.trades,
    topics: Object.values(feedTopics),
    samples,
    resume: () => sim.send({ cmd: 'resume' }),
    pause: () => sim.send({ cmd: 'pause' }),
    sentTrades,
    sink: (cmd, type) => ask(sinkGroup, cmd, type),
    async killSinkMidBatch(timeoutMs) {
      const child = sinkGroup;
      const died = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await ask(child, 'kill-mid-batch', 'armed');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await died;
      clearTimeout(timer);
    },
    async restartSink() {
      sinkGroup = forkTs('./sink-group-process.ts', sinkArgs, sinkEnv);
      await waitMessage(sinkGroup, 'ready');
    },
    async settle(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const sent = await sentTrades();
      while (ingestor.stats().producedTrades < sent && Date.now() < deadline) await sleep(100);
      await ingestor.drain();
      // The store is counted, not a member's counter: a killed member's inserts are in it too.
      let counts = await ask<GroupCounts>(sinkGroup, 'counts', 'counts');
      while (counts.unique < sent && Date.now() < deadline) {
        await ask(sinkGroup, 'flush', 'flushed');
        await sleep(1_000);
        counts = await ask<GroupCounts>(sinkGroup, 'counts', 'counts');
      }
      return { sent, counts };
    },
    async close() {
      sampling = false;
      await sampler;
      await ingestor.stop().catch(() => undefined);
      await Promise.all([closeChild(sim), closeChild(sinkGroup)]);
      await cluster.stop();
      rmSync(kafkaDir, { recursive: true, force: true });
    },
  };
}

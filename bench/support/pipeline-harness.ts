/**
 * The whole live pipeline for benchmarks: the simulator in load mode and the sink each in a process
 * of its own, the feed ingestor in this one, a real local Kafka broker (or KAFKA_BROKERS) and
 * embedded ClickHouse (or CLICKHOUSE_URL). Shared by bench:pipeline and bench:soak.
 *
 * In load mode every trade adds one lot, so per instrument the volume is a sequence number: stored
 * rows minus unique (instrument, volume) pairs are duplicates; trades sent minus unique stored are
 * losses.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { prefixedTopics } from '@feedpipe/contracts';
import { type Credentials, startCredentials } from '@feedpipe/credentials';
import { createFeedIngestor, type FeedIngestor, type WalFsyncPolicy } from '@feedpipe/feed-ingestor';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { EMBEDDED_ENGINE_ALLOCATOR_ENV } from '@feedpipe/store';
import { tempDir, uniqueName } from '@feedpipe/testkit';

/**
 * Where the local broker keeps its log when memory is available. On this class of machine (a
 * virtual disk, 30 s dirty-page expiry) the kernel's first writeback of Kafka's log stalls appends
 * for 0.3-1 s about half a minute into every run; a benchmark of the pipeline should not measure
 * the disk. `--kafka-on-disk` measures it anyway; the JSON says which was used.
 */
const MEMORY_DIR = '/dev/shm';

/** Scheduling niceness of the sink process (0 normal, 19 lowest). */
const SINK_NICENESS = 10;

export interface HarnessOptions {
  rate: number;
  instruments: number;
  connections: number;
  workers: number;
  sink: boolean;
  /** Keep the local broker's log on disk even when a tmpfs is available. */
  kafkaOnDisk?: boolean;
  /** The simulator's token lifetime in seconds; the TOTP source renews. Unset: one fixed token. */
  tokenLifetimeS?: number;
  /** The ingestor's write-ahead log on (under the run's work directory), with this fsync policy. */
  walFsync?: WalFsyncPolicy;
  /** The ingestor's feed sockets on a thread of their own (its default) or on its main thread. */
  socketThread?: boolean;
  log: (message: string) => void;
}

/** One interval of the ledger of gaps as stored (market.feed_gaps rows sharing its bounds). */
export interface StoredGap {
  connection: number;
  cause: string;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  /** Rows: one per instrument subscription the connection held. */
  rows: number;
}

export interface SimStats {
  stats: { packets: number; messages: number; skipped: number; deferred: number };
  /** Trade packets sent. */
  trades: number;
  /** Distinct trades among them: a snapshot repeating the last trade (a resubscription's) counts once. */
  distinctTrades: number;
  memory: NodeJS.MemoryUsage;
}

export interface StoredCounts {
  rows: number;
  unique: number;
  /** Rows the sink inserted (its own count, cheap to read while running). */
  inserted: number;
}

export interface SinkProgress {
  inserted: number;
  /** V8 heap in use and reserved, bytes. */
  heapUsed: number;
  heapTotal: number;
  /** Memory of JS objects held outside the V8 heap (Buffers: fetches, CSV blocks), bytes. */
  external: number;
  /** What ClickHouse accounts for itself (MemoryTracking): chDB's inserts, merges and caches. */
  engineTracked: number;
}

export interface PipelineHarness {
  readonly ingestor: FeedIngestor;
  readonly hasSink: boolean;
  /** Where the broker's log lives: tmpfs or disk for the local broker, external for KAFKA_BROKERS. */
  readonly kafkaLog: 'tmpfs' | 'disk' | 'external';
  readonly kafkaPid: number | undefined;
  readonly simPid: number | undefined;
  readonly sinkPid: number | undefined;
  readonly groupId: string;
  /** The token component when the simulator's tokens expire (`tokenLifetimeS`). */
  readonly credentials: Credentials | undefined;
  resume(): void;
  pause(): void;
  simStats(): Promise<SimStats>;
  /** Waits until the ingestor received everything the simulator sent, then until Kafka acked it. */
  settle(timeoutMs: number): Promise<void>;
  /** Counts and unique pairs by a full scan of market.ticks: for the end of a run, not for sampling. */
  storedTrades(): Promise<StoredCounts>;
  /** Trade rows the sink inserted so far, from its own counters (cheap). */
  insertedTrades(): Promise<number>;
  /** Trade rows the sink inserted and where its memory is, in one round trip; zeros without a sink. */
  sinkProgress(): Promise<SinkProgress>;
  /** Makes the sink insert and commit what it holds. */
  flushSink(): Promise<void>;
  /** The ledger of gaps the sink stored (empty without a sink). */
  storedGaps(): Promise<StoredGap[]>;
  close(): Promise<void>;
}

function request<T>(child: ChildProcess, cmd: string, type: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: { type: string }) => {
      if (m.type === type) {
        child.off('message', onMessage);
        resolve(m as T);
      }
    };
    child.on('message', onMessage);
    child.send({ cmd });
  });
}

function closeChild(child: ChildProcess): Promise<void> {
  child.send({ cmd: 'close' });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

interface SimReady {
  url: string;
  ids: number[];
  /** With a token lifetime: the simulator's REST server (generateAccessToken). */
  rest?: { baseUrl: string; authUrl: string };
}

/** The simulator's first test account: the load's subscriptions and its tokens are this client's. */
const SIM_ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];

/**
 * The credentials component on the TOTP source against the simulator: renewal at the default
 * horizon (a quarter of a short token's life ahead of its expiry), no shared directory.
 */
function totpCredentials(
  rest: NonNullable<SimReady['rest']>,
  log: (message: string) => void,
): Promise<Credentials> {
  return startCredentials(
    {
      clientId: SIM_ACCOUNT.clientId,
      source: 'totp',
      pin: SIM_ACCOUNT.pin,
      totpSecret: SIM_ACCOUNT.totpSecret,
      authUrl: rest.authUrl,
      baseUrl: rest.baseUrl,
      renewAheadMs: 1_800_000,
      warnAheadMs: 21_600_000,
      leaseMs: 30_000,
      totpSkewMs: 0,
      pollMs: 1_000,
    },
    { log },
  );
}

export async function startPipeline(options: HarnessOptions): Promise<PipelineHarness> {
  const workDir = tempDir('bench-pipeline');
  let kafka: LocalKafka | undefined;
  let kafkaDir: string | undefined;
  let kafkaLog: 'tmpfs' | 'disk' | 'external' = 'external';
  let brokers: string[];
  if (process.env.KAFKA_BROKERS) {
    brokers = process.env.KAFKA_BROKERS.split(',');
  } else {
    kafkaLog = !options.kafkaOnDisk && existsSync(MEMORY_DIR) ? 'tmpfs' : 'disk';
    kafkaDir =
      kafkaLog === 'tmpfs' ? mkdtempSync(join(MEMORY_DIR, 'feedpipe-bench-kafka-')) : join(workDir, 'kafka');
    options.log(`starting a local Kafka broker (log on ${kafkaLog}: ${kafkaDir})...`);
    kafka = await startLocalKafka({
      dataDir: kafkaDir,
      heap: '1g',
      // In memory the log must stay bounded: ~2.5 min of a partition's share of 100k ticks/s.
      ...(kafkaLog === 'tmpfs'
        ? { segmentBytes: 64 * 1024 * 1024, retentionBytesPerPartition: 256 * 1024 * 1024 }
        : {}),
    });
    brokers = kafka.brokers;
  }

  const sim = fork(
    new URL('./sim-process.ts', import.meta.url),
    [String(options.instruments), String(options.rate), String(options.tokenLifetimeS ?? 0)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const ready = await new Promise<SimReady>((resolve) => sim.once('message', (m) => resolve(m as SimReady)));
  const ids = ready.ids.slice(0, options.instruments).map(String);
  const prefix = uniqueName('bench');
  const topics = prefixedTopics(prefix);
  const groupId = `${prefix}-sink`;

  let sink: ChildProcess | undefined;
  if (options.sink) {
    sink = fork(
      new URL('./sink-process.ts', import.meta.url),
      [brokers.join(','), prefix, groupId, join(workDir, 'chdb')],
      {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        // On embedded chDB the sink runs as it should in production: see EMBEDDED_ENGINE_ALLOCATOR_ENV.
        env: process.env.CLICKHOUSE_URL ? process.env : { ...process.env, ...EMBEDDED_ENGINE_ALLOCATOR_ENV },
      },
    );
    const sinkProcess = sink;
    // The sink is the batch end of the pipeline (its bound is freshness in seconds, not
    // milliseconds): on one shared 2-core machine it yields the CPU to the feed path, as a
    // production deployment would with separate hosts or CPU shares.
    if (sinkProcess.pid !== undefined) setPriority(sinkProcess.pid, SINK_NICENESS);
    await new Promise<void>((resolve) => sinkProcess.once('message', () => resolve()));
  }
  async function sinkProgress(): Promise<SinkProgress> {
    if (!sink) return { inserted: 0, heapUsed: 0, heapTotal: 0, external: 0, engineTracked: 0 };
    return request<SinkProgress>(sink, 'progress', 'progress');
  }
  const credentials = ready.rest ? await totpCredentials(ready.rest, options.log) : undefined;
  const ingestor = createFeedIngestor(
    {
      feedUrl: ready.url,
      brokers,
      topics,
      partitions: 12,
      connections: options.connections,
      instruments: { trade: ids },
      workers: options.workers,
      socketThread: options.socketThread ?? true,
      wal: options.walFsync ? { dir: join(workDir, 'wal'), fsync: options.walFsync } : undefined,
    },
    {
      credentials: {
        clientId: SIM_ACCOUNT.clientId,
        token: credentials ?? `sim-token-${SIM_ACCOUNT.clientId}`,
        authType: 2,
      },
      log: options.log,
    },
  );
  await ingestor.start();
  // A new token: every connection reconnects with it (as `feed-ingestor run` and `npm start` do).
  credentials?.onChange((token) => ingestor.updateToken(token));

  return {
    credentials,
    ingestor,
    hasSink: sink !== undefined,
    kafkaLog,
    groupId,
    kafkaPid: kafka?.pid,
    simPid: sim.pid,
    sinkPid: sink?.pid,
    resume: () => sim.send({ cmd: 'resume' }),
    pause: () => sim.send({ cmd: 'pause' }),
    simStats: () => request<SimStats>(sim, 'stats', 'stats'),
    async settle(timeoutMs) {
      const end = await request<SimStats>(sim, 'stats', 'stats');
      const deadline = Date.now() + timeoutMs;
      while (ingestor.stats().frames < end.stats.messages && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await ingestor.drain();
    },
    async storedTrades() {
      if (!sink) return { rows: 0, unique: 0, inserted: 0 };
      return request<StoredCounts>(sink, 'counts', 'counts');
    },
    sinkProgress,
    async insertedTrades() {
      if (!sink) return 0;
      return (await request<{ inserted: number }>(sink, 'inserted', 'inserted')).inserted;
    },
    async flushSink() {
      if (sink) await request(sink, 'flush', 'flushed');
    },
    async storedGaps() {
      if (!sink) return [];
      return (await request<{ gaps: StoredGap[] }>(sink, 'gaps', 'gaps')).gaps;
    },
    async close() {
      await credentials?.stop();
      await ingestor.stop();
      await Promise.all([closeChild(sim), sink ? closeChild(sink) : undefined]);
      await kafka?.stop();
      if (kafkaLog === 'tmpfs' && kafkaDir) rmSync(kafkaDir, { recursive: true, force: true });
    },
  };
}

/**
 * The feed ingestor: connection pool -> chunked frames -> decode workers -> Kafka. The main thread
 * only moves bytes between sockets and workers (plus pings and subscription requests), so it stays
 * responsive at hundreds of thousands of packets per second.
 */
import { CaptureWriter } from '@feedpipe/codec';
import { DEFAULT_FEED_TOPICS, type FeedTopics, TOPIC_KINDS } from '@feedpipe/contracts';
import { ensureTopics } from '@feedpipe/service-kit';
import { Registry } from 'prom-client';
import { IngestorError } from './errors.js';
import type { AttemptBudget } from './feed/attempt-budget.js';
import {
  ConnectionPool,
  type ConnectionPoolOptions,
  type ConnectionSnapshot,
  type FeedConnectionTuning,
  type SubscriptionKind,
} from './feed/connection-pool.js';
import type {
  ConnectionState,
  FeedConnectionEvents,
  FeedCredentials,
  LinkState,
} from './feed/feed-connection.js';
import { GapLedger } from './gaps/gap-ledger.js';
import type { GapInterval, OpenGap } from './gaps/gap-tracker.js';
import { RunState, readPreviousRun } from './gaps/run-state.js';
import { StaleWatcher } from './gaps/stale-watcher.js';
import {
  createIngestorMetrics,
  type IngestorMetrics,
  noDataYetOf,
  packetTypeLabel,
} from './ingestor-metrics.js';
import type { LatencyRecorder } from './pipeline/latency-recorder.js';
import { ProducerPipeline } from './pipeline/producer-pipeline.js';
import { TradeMemory } from './pipeline/trade-memory.js';
import type { ChunkResult } from './pipeline/worker-protocol.js';
import { assessFeedReadiness, type FeedReadiness, MARKET_STATUS_OPEN } from './readiness.js';

export interface FeedIngestorOptions {
  /** Feed URL without query parameters, e.g. ws://127.0.0.1:7075/ */
  feedUrl: string;
  credentials: FeedCredentials;
  brokers: string[];
  topics?: Partial<FeedTopics>;
  /** Partitions of topics the ingestor creates. Default 12. */
  partitions?: number;
  /** Feed connections, 1..5. Default 5. */
  connections?: number;
  maxSubscriptionsPerConnection?: number;
  /** Subscribed at start. */
  instruments?: { trade?: readonly string[]; ohlc?: readonly string[] };
  workers?: number;
  chunkBytes?: number;
  flushIntervalMs?: number;
  maxBufferedBytes?: number;
  connection?: FeedConnectionTuning;
  /** Connection attempts of the client id. Default: the process-wide budget of the client id. */
  attemptBudget?: AttemptBudget;
  /**
   * Readiness: a connection with subscriptions and no market data for this long while the market is
   * open (or its state unknown) makes `readiness()` not ready. Default 60 000 ms; 0 turns it off.
   */
  silentAfterMs?: number;
  /**
   * A live subscription with no trade for this long while the market is open is a `stale` gap of
   * its instrument in the ledger (gaps/stale-watcher.ts). Default 600 000 ms; 0 turns it off.
   */
  staleAfterMs?: number;
  /** Also write every received frame to this capture file (codec format). */
  captureFile?: string;
  /**
   * A file where the ingestor notes that it is alive and what it holds, so the next start records
   * the downtime in between as `process_stopped` gaps (gaps/run-state.ts). Unset: not recorded.
   */
  stateFile?: string;
  registry?: Registry;
  log?: (message: string) => void;
}

export interface IngestorStats {
  frames: number;
  bytes: number;
  packets: number;
  malformed: number;
  unknown: number;
  /** Records acknowledged by Kafka, all topics. */
  produced: number;
  /** Trade records acknowledged by Kafka. */
  producedTrades: number;
  bufferedBytes: number;
  bufferFullEvents: number;
  produceRetries: number;
  /** Producers replaced with a chunk unacknowledged: the only way a record can reach Kafka twice. */
  producerResets: number;
  /** Trades not produced because they repeated the instrument's previous trade (a resubscription's snapshot). */
  repeatedTrades: number;
  feedErrors: Record<string, number>;
  /** Text messages received (the feed is binary; they are skipped). */
  textFrames: number;
  /** The last MarketStatus value seen on the feed, undefined before the first. */
  marketStatus: number | undefined;
  /** Changes of the MarketStatus value (at most 50), newest last. */
  marketStatusChanges: Array<{ at: number; status: number }>;
  /** The ledger of gaps: records written, waiting, dropped; the latest closed and the open intervals. */
  gaps: {
    written: number;
    pending: number;
    dropped: number;
    recent: GapInterval[];
    open: OpenGap[];
    /** Instruments stale now (no trade for the stale time while live and open). */
    stale: number;
  };
  /** Refused tokens replaced (by this process, or found renewed elsewhere). */
  tokenRenewals: number;
  /** The latest feed errors (at most 50), newest last: Error packets 805-809 and refused upgrades. */
  recentFeedErrors: FeedErrorEvent[];
  connections: ConnectionSnapshot[];
  fatal: string | undefined;
}

export interface FeedErrorEvent {
  /** Epoch milliseconds. */
  at: number;
  connection: number;
  /** 805-809 from an Error packet, or the HTTP status of a refused upgrade. */
  code: number;
}

const RECENT_FEED_ERRORS = 50;

export interface FeedIngestor {
  start(): Promise<void>;
  /** Stops the sockets, then waits until everything received is acknowledged by Kafka. */
  stop(): Promise<void>;
  subscribe(kind: SubscriptionKind, securityIds: readonly string[]): void;
  unsubscribe(kind: SubscriptionKind, securityIds: readonly string[]): void;
  /** A renewed access token: connections reconnect with it and re-subscribe. */
  updateToken(token: string): void;
  stats(): IngestorStats;
  /** Whether market data is flowing (for /readyz), with the reasons when it is not. */
  readiness(): FeedReadiness;
  /** Waits until every frame received so far is acknowledged by Kafka. */
  drain(): Promise<void>;
  readonly latency: LatencyRecorder;
  readonly registry: Registry;
  readonly metrics: IngestorMetrics;
}

type Log = (message: string) => void;

/** What the connections reported, for stats() and readiness(). */
interface FeedObservations {
  counts: { frames: number; bytes: number; textFrames: number };
  feedErrors: Record<string, number>;
  recentFeedErrors: FeedErrorEvent[];
  marketStatus: number | undefined;
  marketStatusChanges: Array<{ at: number; status: number }>;
  tokenRenewals: number;
}

function checkOptions(options: FeedIngestorOptions): {
  topics: FeedTopics;
  silentAfterMs: number;
  staleAfterMs: number;
} {
  if (!options.feedUrl || !/^wss?:\/\//.test(options.feedUrl)) {
    throw new IngestorError('CONFIG_INVALID', 'feedUrl must be a ws:// or wss:// URL');
  }
  if (options.brokers.length === 0)
    throw new IngestorError('CONFIG_INVALID', 'brokers must list at least one host:port');
  const silentAfterMs = options.silentAfterMs ?? 60_000;
  if (!Number.isInteger(silentAfterMs) || silentAfterMs < 0) {
    throw new IngestorError('CONFIG_INVALID', `silentAfterMs must be an integer >= 0, got ${silentAfterMs}`);
  }
  const staleAfterMs = options.staleAfterMs ?? 600_000;
  if (!Number.isInteger(staleAfterMs) || staleAfterMs < 0) {
    throw new IngestorError('CONFIG_INVALID', `staleAfterMs must be an integer >= 0, got ${staleAfterMs}`);
  }
  return { topics: { ...DEFAULT_FEED_TOPICS, ...options.topics }, silentAfterMs, staleAfterMs };
}

/**
 * Recording is best effort beside production: a disk that cannot keep up loses capture frames
 * (counted and reported), never Kafka data.
 */
function captureRecorder(
  log: Log,
): (writer: CaptureWriter, frame: Uint8Array, receivedAtMicros: number) => void {
  let captureFailures = 0;
  return (writer, frame, receivedAtMicros) => {
    try {
      writer.write(frame, receivedAtMicros);
    } catch (error) {
      if (captureFailures++ === 0)
        log(`capture file write failed (${(error as Error).message}); frames are still produced`);
    }
  };
}

/** The frames -> workers -> Kafka pipeline, its results counted in `metrics`. */
function createPipeline(
  options: FeedIngestorOptions,
  topics: FeedTopics,
  metrics: IngestorMetrics,
  log: Log,
  setPaused: (paused: boolean) => void,
  trades: TradeMemory,
): ProducerPipeline {
  const onResult = (result: ChunkResult): void => {
    trades.record(result.connection, result.traded);
    if (result.repeats > 0) metrics.repeatedTrades.inc(result.repeats);
    for (const [code, count] of result.byCode) metrics.packets.inc({ type: packetTypeLabel(code) }, count);
    if (result.malformed > 0) {
      metrics.malformed.inc(result.malformed);
      // Each malformed packet stopped its frame: the frame is only partly decoded.
      metrics.framesUndecoded.inc({ reason: 'malformed' }, result.malformed);
    }
    if (result.unknown > 0) metrics.unknown.inc(result.unknown);
    const noDataYet = noDataYetOf(result.byCode, result.produced);
    if (noDataYet > 0) metrics.noDataYet.inc(noDataYet);
    TOPIC_KINDS.forEach((kind, i) => {
      const n = result.produced[i] ?? 0;
      if (n > 0) metrics.produced.inc({ topic: topics[kind] }, n);
    });
    metrics.decodeSeconds.observe(result.decodeMicros / 1e6);
    metrics.produceSeconds.observe(result.produceMicros / 1e6);
    if (result.produceRetries > 0) metrics.kafkaErrors.inc(result.produceRetries);
    if (result.producerResets > 0) metrics.producerResets.inc(result.producerResets);
    metrics.bufferedBytes.set(pipeline.buffered);
  };
  const pipeline = new ProducerPipeline({
    brokers: options.brokers,
    topics,
    workers: options.workers,
    chunkBytes: options.chunkBytes,
    flushIntervalMs: options.flushIntervalMs,
    maxBufferedBytes: options.maxBufferedBytes,
    onResult,
    onUndecoded: (reason, frames) => metrics.framesUndecoded.inc({ reason }, frames),
    guardOf: (connection) => trades.guardFor(connection),
    onPressure: (full, buffered) => {
      if (full) {
        metrics.bufferFull.inc();
        log(
          `BUFFER FULL: ${buffered} bytes not yet acknowledged by Kafka; pausing the feed sockets until it drains`,
        );
      } else {
        log(`buffer drained to ${buffered} bytes; resuming the feed sockets`);
      }
      setPaused(full);
    },
  });
  // Latency is observed into the histogram per chunk from the recorder's own samples.
  const recordLatency = pipeline.latency.recordFrames.bind(pipeline.latency);
  pipeline.latency.recordFrames = (receivedAt, ackedAt) => {
    recordLatency(receivedAt, ackedAt);
    for (let i = 0; i < receivedAt.length; i += 16)
      metrics.ackLatencySeconds.observe((ackedAt - (receivedAt[i] as number)) / 1e6);
  };
  return pipeline;
}

/** What the connections' liveness feeds: the ledger of gaps, the stale watch, the repeat guard. */
interface Continuity {
  /** A socket opened (its snapshots may repeat trades produced already). */
  opened(connection: number): void;
  link(connection: number, link: LinkState, atMs: number): void;
  /** A new MarketStatus value. */
  marketStatus(status: number, atMs: number): void;
}

/** The ledger's tracker, the stale watcher (when on) and the trade memory, behind one interface. */
function continuityOf(ledger: GapLedger, stale: StaleWatcher | undefined, trades: TradeMemory): Continuity {
  return {
    opened: (connection) => trades.opened(connection),
    link(connection, link, atMs) {
      ledger.tracker.link(connection, link, atMs);
      stale?.link(connection, link.live, atMs);
    },
    marketStatus: (status, atMs) => stale?.market(status === MARKET_STATUS_OPEN, atMs),
  };
}

/**
 * The pool's callbacks: frames go to `deliver`, liveness to the ledger of gaps (`continuity`);
 * everything else is counted, logged and kept in `seen`.
 */
function connectionEvents(
  seen: FeedObservations,
  metrics: IngestorMetrics,
  log: Log,
  continuity: Continuity,
  deliver: (connection: number, frame: Buffer, receivedAtMicros: number) => void,
): FeedConnectionEvents {
  const stateByConnection = new Map<number, ConnectionState>();
  const refreshConnectionGauge = (): void => {
    metrics.connections.reset();
    for (const state of stateByConnection.values()) metrics.connections.inc({ state });
  };
  return {
    onFrame(connection, frame, receivedAtMicros) {
      seen.counts.frames += 1;
      seen.counts.bytes += frame.byteLength;
      metrics.frames.inc();
      metrics.bytes.inc(frame.byteLength);
      deliver(connection, frame, receivedAtMicros);
    },
    onState(connection, state, reason) {
      if (state === 'open' && stateByConnection.get(connection) !== 'open') continuity.opened(connection);
      stateByConnection.set(connection, state);
      refreshConnectionGauge();
      if (state === 'connecting' && reason === 'reconnecting') metrics.reconnects.inc();
      if (state === 'fatal' || state === 'evicted') log(`connection ${connection}: ${state}: ${reason}`);
    },
    onFeedError(connection, code) {
      seen.feedErrors[String(code)] = (seen.feedErrors[String(code)] ?? 0) + 1;
      seen.recentFeedErrors.push({ at: Date.now(), connection, code });
      if (seen.recentFeedErrors.length > RECENT_FEED_ERRORS) seen.recentFeedErrors.shift();
      metrics.feedErrors.inc({ code: String(code) });
      log(`connection ${connection}: feed error ${code}`);
    },
    onRetry(connection, delayMs, cause) {
      metrics.retries.inc({ cause });
      if (cause !== 'budget' || delayMs >= 1_000)
        log(`connection ${connection}: next attempt in ${delayMs} ms (${cause})`);
    },
    onTextFrame(connection, bytes) {
      seen.counts.textFrames += 1;
      metrics.textFrames.inc();
      metrics.framesUndecoded.inc({ reason: 'text' });
      // The first one says what happened; the metric carries the rest (no log flood).
      if (seen.counts.textFrames === 1)
        log(
          `connection ${connection}: unexpected text message (${bytes} bytes) skipped; counted in ingestor_text_frames_total`,
        );
    },
    onMarketStatus(_connection, status) {
      if (status !== seen.marketStatus) {
        // Every connection carries the broadcast: the first one to bring a new value records it.
        log(`market status ${status}`);
        seen.marketStatusChanges.push({ at: Date.now(), status });
        if (seen.marketStatusChanges.length > RECENT_FEED_ERRORS) seen.marketStatusChanges.shift();
        metrics.marketStatus.set(status);
        continuity.marketStatus(status, Date.now());
      }
      seen.marketStatus = status;
    },
    onLink(connection, link, atMs) {
      continuity.link(connection, link, atMs);
    },
    onUndelivered(_connection, reason) {
      metrics.framesUndecoded.inc({ reason });
    },
  };
}

function ingestorStats(
  seen: FeedObservations,
  pipeline: ProducerPipeline,
  pool: ConnectionPool,
  ledger: GapLedger,
  stale: StaleWatcher | undefined,
): IngestorStats {
  return {
    frames: seen.counts.frames,
    bytes: seen.counts.bytes,
    packets: pipeline.totals.packets,
    malformed: pipeline.totals.malformed,
    unknown: pipeline.totals.unknown,
    produced: pipeline.totals.produced,
    producedTrades: pipeline.totals.producedTrades,
    bufferedBytes: pipeline.buffered,
    bufferFullEvents: pipeline.totals.bufferFullEvents,
    produceRetries: pipeline.totals.produceRetries,
    producerResets: pipeline.totals.producerResets,
    repeatedTrades: pipeline.totals.repeats,
    feedErrors: { ...seen.feedErrors },
    textFrames: seen.counts.textFrames,
    marketStatus: seen.marketStatus,
    marketStatusChanges: [...seen.marketStatusChanges],
    gaps: { ...ledger.stats(), stale: stale?.openGaps().length ?? 0 },
    tokenRenewals: seen.tokenRenewals,
    recentFeedErrors: [...seen.recentFeedErrors],
    connections: pool.snapshot(),
    fatal: pool.fatal,
  };
}

/** The ledger of gaps and, with a state file, the previous run's downtime recovered into it. */
function createLedger(
  options: FeedIngestorOptions,
  topics: FeedTopics,
  metrics: IngestorMetrics,
  log: Log,
  pool: () => ConnectionPool,
): { ledger: GapLedger; runState: RunState | undefined } {
  const ledger = new GapLedger({
    brokers: options.brokers,
    topic: topics.status,
    instrumentsOf: (connection) => pool().instrumentsOf(connection),
    metrics,
    log,
  });
  if (!options.stateFile) return { ledger, runState: undefined };
  const previous = readPreviousRun(options.stateFile, log);
  if (previous) ledger.tracker.recover(previous);
  const runState = new RunState({
    path: options.stateFile,
    held: () => {
      const held = pool().held();
      return { trade: [...held.trade], ohlc: [...held.ohlc] };
    },
    log,
  });
  return { ledger, runState };
}

/** The stale watch of the ledger of gaps, unless turned off (0). */
function staleWatcherOf(
  staleAfterMs: number,
  trades: TradeMemory,
  ledger: GapLedger,
  pool: () => ConnectionPool,
): StaleWatcher | undefined {
  if (staleAfterMs === 0) return undefined;
  return new StaleWatcher({
    staleAfterMs,
    lastTradeAt: (securityId) => trades.lastTradeAt(securityId),
    instrumentsOf: (connection) => pool().instrumentsOf(connection).trade,
    record: (interval) => ledger.record(interval),
  });
}

/** A refused token: renewed (counted), or not renewable (counted, fatal, said loudly with what to do). */
function tokenCallbacks(
  seen: FeedObservations,
  metrics: IngestorMetrics,
  log: Log,
): Pick<ConnectionPoolOptions, 'onTokenRenewed' | 'onTokenUnrenewable'> {
  return {
    onTokenRenewed: (here) => {
      seen.tokenRenewals += 1;
      metrics.tokenRenewals.inc({ outcome: here ? 'renewed' : 'adopted' });
      log(
        `feed token ${here ? 'renewed' : 'replaced by one renewed elsewhere'}; reconnecting the connections on the refused one`,
      );
    },
    onTokenUnrenewable: (reason) => {
      metrics.tokenRenewals.inc({ outcome: 'failed' });
      metrics.tokenUnrenewable.set(1);
      log(`TOKEN REFUSED, NO RENEWAL: ${reason}`);
    },
  };
}

function refreshSubscriptionGauge(pool: ConnectionPool, metrics: IngestorMetrics): void {
  const snapshot = pool.snapshot();
  metrics.subscriptions.set(
    { kind: 'trade' },
    snapshot.reduce((s, c) => s + c.trade, 0),
  );
  metrics.subscriptions.set(
    { kind: 'ohlc' },
    snapshot.reduce((s, c) => s + c.ohlc, 0),
  );
}

export function createFeedIngestor(options: FeedIngestorOptions): FeedIngestor {
  const { topics, silentAfterMs, staleAfterMs } = checkOptions(options);
  const log = options.log ?? ((m: string) => process.stderr.write(`ingestor: ${m}\n`));
  const registry = options.registry ?? new Registry();
  const metrics = createIngestorMetrics(registry);
  const seen: FeedObservations = {
    counts: { frames: 0, bytes: 0, textFrames: 0 },
    feedErrors: {},
    recentFeedErrors: [],
    marketStatus: undefined,
    marketStatusChanges: [],
    tokenRenewals: 0,
  };
  let startedAt = Date.now();
  let credentials = options.credentials;
  let capture: CaptureWriter | undefined;
  const recordFrame = captureRecorder(log);
  const trades = new TradeMemory({ instrumentsOf: (connection) => pool.instrumentsOf(connection).trade });
  const pipeline = createPipeline(options, topics, metrics, log, (full) => pool.setPaused(full), trades);
  const { ledger, runState } = createLedger(options, topics, metrics, log, () => pool);
  const stale = staleWatcherOf(staleAfterMs, trades, ledger, () => pool);
  const pool: ConnectionPool = new ConnectionPool({
    url: options.feedUrl,
    credentials,
    connections: options.connections,
    maxSubscriptionsPerConnection: options.maxSubscriptionsPerConnection,
    connection: options.connection,
    attemptBudget: options.attemptBudget,
    events: connectionEvents(
      seen,
      metrics,
      log,
      continuityOf(ledger, stale, trades),
      (connection, frame, receivedAtMicros) => {
        if (capture) recordFrame(capture, frame, receivedAtMicros);
        pipeline.push(connection, frame, receivedAtMicros);
      },
    ),
    onFatal: (reason) =>
      log(`FATAL for client ${credentials.clientId}: ${reason}; no more connection attempts`),
    ...tokenCallbacks(seen, metrics, log),
  });

  return {
    registry,
    metrics,
    latency: pipeline.latency,
    async start() {
      await ensureTopics(
        options.brokers,
        TOPIC_KINDS.map((kind) => topics[kind]),
        options.partitions ?? 12,
      );
      if (options.captureFile) capture = await CaptureWriter.open(options.captureFile);
      if (options.instruments?.trade?.length) pool.subscribe('trade', options.instruments.trade);
      if (options.instruments?.ohlc?.length) pool.subscribe('ohlc', options.instruments.ohlc);
      refreshSubscriptionGauge(pool, metrics);
      startedAt = Date.now();
      runState?.start();
      stale?.start();
      pool.start();
    },
    async stop() {
      // Open gaps end now; the sockets closing below are the stop, recorded by the next start.
      const stoppedAt = Date.now();
      stale?.stop(stoppedAt);
      ledger.tracker.closeAll(stoppedAt);
      pool.stop();
      await pipeline.close();
      await ledger.close(stoppedAt);
      await runState?.stop(stoppedAt);
      await capture?.close();
      capture = undefined;
    },
    subscribe(kind, ids) {
      pool.subscribe(kind, ids);
      refreshSubscriptionGauge(pool, metrics);
    },
    unsubscribe(kind, ids) {
      pool.unsubscribe(kind, ids);
      refreshSubscriptionGauge(pool, metrics);
    },
    updateToken(token) {
      // A TokenSource already hands the renewed token to the next connect; a fixed token is replaced.
      if (typeof credentials.token === 'string') credentials = { ...credentials, token };
      pool.updateCredentials(credentials);
    },
    drain: () => pipeline.drain(),
    readiness: () =>
      assessFeedReadiness({
        fatal: pool.fatal,
        connections: pool.snapshot(),
        marketStatus: seen.marketStatus,
        startedAt,
        now: Date.now(),
        silentAfterMs,
      }),
    stats: () => ingestorStats(seen, pipeline, pool, ledger, stale),
  };
}

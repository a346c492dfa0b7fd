/**
 * The feed ingestor: connection pool (its sockets on a thread of their own) -> chunked frames ->
 * decode workers -> Kafka. The main thread only moves bytes between the socket thread and the
 * workers (plus the connections' state and subscription requests), so it stays responsive at
 * hundreds of thousands of packets per second.
 *
 * Built as an object graph in dependency order, each part from the parts before it (`buildGraph`):
 *
 *   metrics, observations
 *   subscription book ............. which instrument is on which connection (feed/subscription-book.ts)
 *   trade memory, gap ledger (+ run state), stale watch ... read the book
 *   write-ahead log (when on) ..... a tap of the intake and an observer of the pipeline (wal/)
 *   producer pipeline ............. its observers: latency, trade memory, metrics, the log
 *   frame intake .................. where frames enter: counted, shown to the taps (capture, the
 *                                   log), pushed
 *   connection pool ............... sockets; frames to the intake, liveness to the ledger
 *   live subscriptions ............ changes while running, through the pool, kept in the ledger
 *
 * and one edge added last, the pipeline's pressure pausing the pool's sockets. Frames enter at
 * `FrameIntake.receive` (add a `FrameTap` to see each one as received); Kafka's acknowledgements come
 * back to the pipeline's observers (add a `PipelineObserver` to see each acknowledged chunk).
 */
import { randomInt } from 'node:crypto';
import { TOPIC_KINDS } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { Registry } from 'prom-client';
import type { LinkState } from './feed/connection-machine.js';
import { ConnectionPool, type ConnectionSnapshot } from './feed/connection-pool.js';
import { SubscriptionBook, type SubscriptionKind, type SubscriptionView } from './feed/subscription-book.js';
import {
  type Continuity,
  connectionEvents,
  type FeedErrorEvent,
  FeedObservations,
  tokenCallbacks,
} from './feed-observations.js';
import { GapLedger } from './gaps/gap-ledger.js';
import type { GapInterval, OpenGap } from './gaps/gap-tracker.js';
import { RunState, readPreviousRun, readStoppedBases } from './gaps/run-state.js';
import { StaleWatcher } from './gaps/stale-watcher.js';
import { createIngestorMetrics, type IngestorMetrics } from './ingestor-metrics.js';
import {
  type FeedIngestorConfig,
  type FeedIngestorDeps,
  type IngestorSettings,
  ingestorSettings,
} from './ingestor-options.js';
import { handOverConnections } from './leader/handover-leader.js';
import { HandoverSuccessor } from './leader/handover-successor.js';
import { IngestorLeadership, type IngestorRole } from './leader/ingestor-leadership.js';
import { createLeadershipMetrics, type LeadershipMetrics } from './leader/leadership-metrics.js';
import type { LeaseFence } from './leader/lease-fence.js';
import { CaptureTap } from './pipeline/capture-tap.js';
import { FrameIntake } from './pipeline/frame-intake.js';
import { LatencyRecorder } from './pipeline/latency-recorder.js';
import { pipelineMetrics } from './pipeline/pipeline-metrics.js';
import { ProducerPipeline } from './pipeline/producer-pipeline.js';
import { TradeMemory } from './pipeline/trade-memory.js';
import { assessFeedReadiness, type FeedReadiness, MARKET_STATUS_OPEN } from './readiness.js';
import {
  type ChangeOutcome,
  type ChangeSource,
  LiveSubscriptions,
} from './subscriptions/live-subscriptions.js';
import { OverridesFile, readOverrides } from './subscriptions/overrides-file.js';
import { type Overrides, SubscriptionPlan } from './subscriptions/subscription-plan.js';
import { IngestorWal, type IngestorWalStats } from './wal/ingestor-wal.js';

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
  /** The write-ahead log, when on. */
  wal?: IngestorWalStats;
  /** With leadership configured: this process's part (a standby holds no connection). */
  role?: IngestorRole;
  /** Frames read from a socket after the lease ran out, and so not taken. */
  fencedFrames: number;
  /** This run's number, the first field of its records' source identity. */
  sourceRun: number;
}

export interface FeedIngestor {
  start(): Promise<void>;
  /** Stops the sockets, then waits until everything received is acknowledged by Kafka. */
  stop(): Promise<void>;
  /** Adds instruments while running (`changeSubscriptions` with nothing to remove, source 'api'). */
  subscribe(kind: SubscriptionKind, securityIds: readonly string[]): void;
  unsubscribe(kind: SubscriptionKind, securityIds: readonly string[]): void;
  /**
   * Adds and removes instruments while running, all or nothing: INVALID_REQUEST (not a security id,
   * one both added and removed) or SUBSCRIPTION_LIMIT (more than the connections hold) change nothing.
   * Kept in `subscriptionsFile` when set.
   */
  changeSubscriptions(
    kind: SubscriptionKind,
    change: { add?: readonly string[]; remove?: readonly string[] },
    source?: ChangeSource,
  ): ChangeOutcome;
  /** The universe of `kind` is now `securityIds` (a watched universe file changed). */
  setUniverse(kind: SubscriptionKind, securityIds: readonly string[]): ChangeOutcome;
  /** What is subscribed: counts by kind and connection, and the changes kept as overrides. */
  subscriptions(): SubscriptionsSnapshot;
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

/** The parts of one ingestor, in the order they are built. */
interface IngestorGraph {
  readonly registry: Registry;
  readonly metrics: IngestorMetrics;
  readonly seen: FeedObservations;
  readonly book: SubscriptionBook;
  readonly trades: TradeMemory;
  readonly ledger: GapLedger;
  readonly runState: RunState | undefined;
  readonly stale: StaleWatcher | undefined;
  readonly latency: LatencyRecorder;
  readonly pipeline: ProducerPipeline;
  readonly intake: FrameIntake;
  readonly capture: CaptureTap | undefined;
  readonly wal: IngestorWal | undefined;
  readonly pool: ConnectionPool;
  readonly live: LiveSubscriptions;
  readonly leadership: IngestorLeadership | undefined;
  /** With leadership: this process's part in a handover as the successor. */
  readonly successor: HandoverSuccessor | undefined;
  readonly run: number;
  readonly log: (message: string) => void;
}

export interface SubscriptionsSnapshot {
  held: Record<SubscriptionKind, number>;
  /** Subscriptions all connections can hold (connections x per-connection limit). */
  capacity: number;
  connections: Array<{ index: number; trade: number; ohlc: number }>;
  /** Changes made while running, relative to the universe (kept across restarts with a file). */
  overrides: Overrides;
}

/** The ledger of gaps and, with a state file, the previous run's downtime recovered into it. */
function createLedger(
  settings: IngestorSettings,
  metrics: IngestorMetrics,
  book: SubscriptionView,
  trades: TradeMemory,
): { ledger: GapLedger; runState: RunState | undefined } {
  const { log } = settings;
  const ledger = new GapLedger({
    brokers: settings.brokers,
    topic: settings.topics.status,
    instrumentsOf: (connection) => book.instrumentsOf(connection),
    subscribedAt: (kind, securityId) => book.subscribedAt(kind, securityId),
    metrics,
    log,
  });
  if (!settings.stateFile) return { ledger, runState: undefined };
  const previous = readPreviousRun(settings.stateFile, log);
  if (previous) ledger.tracker.recover(previous);
  const runState = new RunState({
    path: settings.stateFile,
    held: () => book.held(),
    // With leadership another process may lead between this one's stop and its next lead, and
    // produce trades the bases do not know: they are neither written nor read then.
    ...(settings.leadership ? {} : { bases: () => trades.heldBases() }),
    log,
  });
  return { ledger, runState };
}

/** The stale watch of the ledger of gaps, unless turned off (0). */
function staleWatcherOf(
  staleAfterMs: number,
  trades: TradeMemory,
  ledger: GapLedger,
  book: SubscriptionView,
): StaleWatcher | undefined {
  if (staleAfterMs === 0) return undefined;
  return new StaleWatcher({
    staleAfterMs,
    lastTradeAt: (securityId) => trades.lastTradeAt(securityId),
    instrumentsOf: (connection) => book.instrumentsOf(connection).trade,
    subscribedAt: (securityId) => book.subscribedAt('trade', securityId),
    record: (interval) => ledger.record(interval),
  });
}

/** The ledger's tracker, the stale watcher (when on) and the trade memory, behind one interface. */
function continuityOf(ledger: GapLedger, stale: StaleWatcher | undefined, trades: TradeMemory): Continuity {
  return {
    opened: (connection) => trades.opened(connection),
    link(connection: number, link: LinkState, atMs: number) {
      ledger.tracker.link(connection, link, atMs);
      stale?.link(connection, link.live, atMs);
    },
    marketStatus: (status, atMs) => stale?.market(status === MARKET_STATUS_OPEN, atMs),
  };
}

/** The frames -> workers -> Kafka pipeline, told to record latency, remember trades and count. */
function createPipeline(
  settings: IngestorSettings,
  metrics: IngestorMetrics,
  trades: TradeMemory,
  latency: LatencyRecorder,
  sourceRun: number,
  fence: LeaseFence | undefined,
): ProducerPipeline {
  return new ProducerPipeline({
    sourceRun,
    ...(fence ? { fence: fence.buffer } : {}),
    brokers: settings.brokers,
    topics: settings.topics,
    workers: settings.workers,
    chunkBytes: settings.chunkBytes,
    flushIntervalMs: settings.flushIntervalMs,
    maxBufferedBytes: settings.maxBufferedBytes,
    guardOf: (connection) => trades.guardFor(connection),
    basesOf: (connection) => trades.bases.ship(connection),
    observers: [
      { acknowledged: (chunk) => latency.recordFrames(chunk.receivedAtMicros, chunk.result.ackedAtMicros) },
      { acknowledged: (chunk) => trades.record(chunk.result.connection, chunk.result.traded) },
      {
        acknowledged: (chunk) => trades.bases.settle(chunk.result.connection, chunk.result.movedBases),
        // Part of a chunk given up may be in Kafka: what the connection's bases say is unsure.
        undecoded: (connection) => trades.bases.clear(connection),
      },
      pipelineMetrics(metrics, settings.topics, settings.log),
    ],
  });
}

/** Every part, each from the parts before it; the pipeline's pressure on the pool is wired last. */
function buildGraph(settings: IngestorSettings, deps: FeedIngestorDeps): IngestorGraph {
  const { log } = settings;
  const registry = deps.registry ?? new Registry();
  const metrics = createIngestorMetrics(registry);
  const seen = new FeedObservations();
  const book = new SubscriptionBook(settings.connections, settings.maxSubscriptionsPerConnection);
  const trades = new TradeMemory({ instrumentsOf: (connection) => book.instrumentsOf(connection).trade });
  const { ledger, runState } = createLedger(settings, metrics, book, trades);
  const stale = staleWatcherOf(settings.staleAfterMs, trades, ledger, book);
  const latency = new LatencyRecorder();
  const wal = settings.wal && new IngestorWal(settings.wal, registry, log);
  const run = wal?.run ?? randomInt(0, 2 ** 32);
  const leadershipMetrics = createLeadershipMetrics(registry);
  const leadership = leadershipOf(settings, deps, run, leadershipMetrics, () => void lead());
  // Without leadership configured this process always leads.
  if (!leadership) leadershipMetrics.leader.set(1);
  const pipeline = createPipeline(settings, metrics, trades, latency, run, leadership?.fence);
  const intake = new FrameIntake(pipeline, metrics);
  let successor: HandoverSuccessor | undefined;
  // Only a leader with a running lease takes frames (a woken frozen leader reads, but keeps
  // nothing), and a successor those of the connections a handover gave it.
  if (leadership)
    intake.gate(
      (connection, receivedAtMicros) =>
        successor?.takes(connection, Math.floor(receivedAtMicros / 1000)) === true || leadership.fence.open(),
    );
  const capture = settings.captureFile ? new CaptureTap(settings.captureFile, log) : undefined;
  for (const tap of [capture, wal]) if (tap) intake.tap(tap);
  if (wal) pipeline.observe(wal);
  const clientId = deps.credentials.clientId;
  const pool = new ConnectionPool({
    url: settings.feedUrl,
    credentials: deps.credentials,
    connections: book.connections,
    book,
    connection: settings.connection,
    socketThread: settings.socketThread,
    attemptBudget: deps.attemptBudget,
    events: connectionEvents(seen, metrics, log, continuityOf(ledger, stale, trades), intake),
    onFatal: (reason) => log(`FATAL for client ${clientId}: ${reason}; no more connection attempts`),
    ...tokenCallbacks(seen, metrics, log),
  });
  // Backpressure closes the loop: the pipeline's bound pauses reading the sockets that feed it.
  pipeline.observe({ pressure: (full) => pool.setPaused(full) });
  const live = liveSubscriptionsOf(settings, {
    ...{ book, pool, ledger, trades, metrics, log },
    // A leader's changes reach its standbys (and whichever leads next subscribes the same).
    changed: () => leadership?.announceOverrides(),
  });
  if (leadership) {
    successor = successorOf(leadership, { book, pool, pipeline, trades, ledger, log });
    leadership.listen((message) => successor?.onMessage(message));
    leadership.shareOverrides(
      () => live.overrides(),
      (overrides) => live.adoptOverrides(overrides),
    );
  }
  const parts = { registry, metrics, seen, book, trades, ledger, runState, stale, latency };
  const graph: IngestorGraph = {
    ...parts,
    ...{ pipeline, intake, capture, wal, pool, live, leadership, successor, run, log },
  };
  const lead = () => leadFeed(graph, settings).catch((error: unknown) => fail(error));
  const fail = (error: unknown) => {
    log(`leading failed: ${(error as Error).message}`);
    deps.onFenced?.(`leading failed: ${(error as Error).message}`);
  };
  return graph;
}

/** A standby's part in a planned handover, wired to the graph's parts. */
function successorOf(
  leadership: IngestorLeadership,
  parts: {
    book: SubscriptionBook;
    pool: ConnectionPool;
    pipeline: ProducerPipeline;
    trades: TradeMemory;
    ledger: GapLedger;
    log: (message: string) => void;
  },
): HandoverSuccessor {
  const { sessionTimeoutMs } = leadership.options;
  return new HandoverSuccessor({
    member: () => leadership.memberId,
    standingBy: () => leadership.role === 'standby',
    send: (message) => leadership.channel.send(message),
    designate: () => leadership.designateSelf(),
    fence: leadership.fence,
    // As long as a leader's lease: the session less the margin (kafka-leadership.ts).
    authorityMs: sessionTimeoutMs - Math.floor(sessionTimeoutMs / 6),
    book: parts.book,
    pool: parts.pool,
    pipeline: parts.pipeline,
    adopt: (connection, last, bases) => parts.trades.adopt(connection, last, bases),
    recordGap: (interval) => parts.ledger.record(interval),
    log: parts.log,
  });
}

/** With leadership configured, the part that decides when this process holds the feed. */
function leadershipOf(
  settings: IngestorSettings,
  deps: FeedIngestorDeps,
  run: number,
  metrics: LeadershipMetrics,
  onLead: () => void,
): IngestorLeadership | undefined {
  if (!settings.leadership) return undefined;
  return new IngestorLeadership({
    brokers: settings.brokers,
    options: settings.leadership,
    onFenced: deps.onFenced,
    run,
    metrics,
    log: settings.log,
    onLead,
  });
}

/** The instruments at start (with the changes an earlier run kept) and the changes while running. */
function liveSubscriptionsOf(
  settings: IngestorSettings,
  parts: Omit<ConstructorParameters<typeof LiveSubscriptions>[0], 'plan' | 'file'>,
): LiveSubscriptions {
  const path = settings.subscriptionsFile;
  const plan = new SubscriptionPlan(settings.instruments, path ? readOverrides(path, parts.log) : undefined);
  return new LiveSubscriptions({
    ...parts,
    plan,
    file: path ? new OverridesFile(path, parts.log) : undefined,
  });
}

/** A standby is ready (it stands by); a fenced or stopped process is not. */
function standbyReadiness(role: IngestorRole): FeedReadiness {
  return role === 'standby' || role === 'joining'
    ? { ready: true, reasons: [], market: 'unknown' }
    : { ready: false, reasons: [`this process is ${role}: it no longer leads`], market: 'unknown' };
}

function ingestorStats(graph: IngestorGraph): IngestorStats {
  const { seen, pipeline, pool, ledger, stale, intake } = graph;
  return {
    ...intake.counts,
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
    textFrames: seen.textFrames,
    marketStatus: seen.marketStatus,
    marketStatusChanges: [...seen.marketStatusChanges],
    gaps: { ...ledger.stats(), stale: stale?.openGaps().length ?? 0 },
    tokenRenewals: seen.tokenRenewals,
    recentFeedErrors: [...seen.recentFeedErrors],
    connections: pool.snapshot(),
    fatal: pool.fatal,
    ...(graph.wal ? { wal: graph.wal.stats() } : {}),
    ...(graph.leadership ? { role: graph.leadership.role } : {}),
    fencedFrames: intake.refused,
    sourceRun: graph.run,
  };
}

async function startGraph(graph: IngestorGraph, settings: IngestorSettings) {
  await KafkaAdmin.ensureTopicsOnce(
    settings.brokers,
    TOPIC_KINDS.map((kind) => settings.topics[kind]),
    { partitions: settings.partitions },
  );
  await graph.capture?.open();
  // Loading the socket thread takes a few hundred ms, and its first moments (a fresh heap's first
  // collections, code not compiled yet) are slow: a standby's first socket is a handover's, whose
  // gap would include them.
  graph.pool.warmSockets();
  // A standby holds nothing until the group makes it the leader (leadFeed).
  if (graph.leadership) await graph.leadership.start();
  else await leadFeed(graph, settings);
}

/**
 * The feed held by this process: what earlier runs (and, after a failover, the fallen leader on
 * this host) logged and Kafka never acknowledged goes first, then the connections open.
 */
async function leadFeed(graph: IngestorGraph, settings: IngestorSettings) {
  const { leadership, successor } = graph;
  const fellow = leadership
    ? {
        peerDirs: leadership.options.peerWalDirs,
        fence: leadership.fence.buffer,
        // A handover's successor already writes this run's log: only the peers' are replayed.
        ownLog: !successor?.succeeded,
      }
    : {};
  // A clean stop's quantity bases hold when nothing was produced since: no other leader, and no
  // replay of the write-ahead log (whose records would follow them).
  const restored = !leadership && settings.stateFile ? readStoppedBases(settings.stateFile) : undefined;
  const restore = () => restored && graph.trades.restoreBases(graph.book.connections, restored);
  const replayed = graph.wal?.replayAhead(
    graph.pipeline,
    graph.trades,
    settings.brokers,
    settings.topics,
    fellow,
    (records) => {
      if (records === 0) restore();
    },
  );
  graph.live.subscribePlanned();
  if (!graph.wal) restore();
  // Another process led until it fell: the ledger's gap runs from the last moment it was alive.
  const fellAt = leadership?.predecessorLastAliveMs();
  if (fellAt !== undefined) {
    const held = graph.book.held();
    graph.ledger.tracker.recover({
      stoppedAtMs: fellAt,
      cause: 'failover',
      trade: new Set(held.trade),
      ohlc: new Set(held.ohlc),
    });
  }
  graph.runState?.start();
  graph.stale?.start();
  graph.pool.start();
  await replayed;
  // Connections a handover opened whose cut never came (the old leader fell): the replay of its
  // log told the repeat guard what it produced; they go now.
  successor?.releaseHeld();
}

/** A leader that stops offers its connections to a standby first (leader/handover-leader.ts). */
async function handOver(graph: IngestorGraph): Promise<void> {
  const { leadership } = graph;
  if (leadership?.role !== 'leader' || leadership.options.handoverClaimMs === 0) return;
  const outcome = await handOverConnections({
    member: leadership.memberId,
    send: (message) => leadership.channel.send(message),
    inbox: leadership.inbox,
    pool: graph.pool,
    book: graph.book,
    drainConnection: (connection) => graph.pipeline.drainConnection(connection),
    lastTradesOf: (ids) => graph.trades.lastTradesOf(ids),
    basesOf: (connection) => graph.trades.bases.entriesOf(connection),
    release: (connection) => graph.ledger.tracker.release(connection),
    claimMs: leadership.options.handoverClaimMs,
    log: graph.log,
  }).catch((error: unknown) => {
    graph.log(`handover failed: ${(error as Error).message}`);
    return 'aborted' as const;
  });
  leadership.countHandover(outcome);
}

async function stopGraph(graph: IngestorGraph): Promise<void> {
  await handOver(graph);
  // Open gaps end now; the sockets closing below are the stop, recorded by the next start.
  const stoppedAt = Date.now();
  graph.stale?.stop(stoppedAt);
  graph.ledger.tracker.closeAll(stoppedAt);
  graph.pool.stop();
  const fenced = graph.leadership?.role === 'fenced';
  // A fenced process may send nothing more: what it holds stays in its log for the leader.
  await (fenced ? graph.pipeline.abandon() : graph.pipeline.close());
  await graph.leadership?.stop();
  await graph.wal?.close(!fenced);
  await graph.ledger.close(stoppedAt);
  await graph.runState?.stop(stoppedAt);
  await graph.capture?.close();
}

export function createFeedIngestor(config: FeedIngestorConfig, deps: FeedIngestorDeps): FeedIngestor {
  const settings = ingestorSettings(config, deps);
  const graph = buildGraph(settings, deps);
  const { pool, book, seen, live } = graph;
  let startedAt = Date.now();
  let credentials = deps.credentials;
  return {
    registry: graph.registry,
    metrics: graph.metrics,
    latency: graph.latency,
    async start() {
      await startGraph(graph, settings);
      startedAt = Date.now();
    },
    stop: () => stopGraph(graph),
    subscribe: (kind, ids) => void live.change(kind, ids, [], 'api'),
    unsubscribe: (kind, ids) => void live.change(kind, [], ids, 'api'),
    changeSubscriptions: (kind, change, source = 'api') =>
      live.change(kind, change.add ?? [], change.remove ?? [], source),
    setUniverse: (kind, ids) => live.setUniverse(kind, ids),
    subscriptions: () => ({
      held: { trade: book.count('trade'), ohlc: book.count('ohlc') },
      capacity: book.capacity,
      connections: pool.snapshot().map((c) => ({ index: c.index, trade: c.trade, ohlc: c.ohlc })),
      overrides: live.overrides(),
    }),
    updateToken(token) {
      // A TokenSource already hands the renewed token to the next connect; a fixed token is replaced.
      if (typeof credentials.token === 'string') credentials = { ...credentials, token };
      pool.updateCredentials(credentials);
    },
    drain: () => graph.pipeline.drain(),
    readiness: () =>
      graph.leadership && graph.leadership.role !== 'leader'
        ? standbyReadiness(graph.leadership.role)
        : assessFeedReadiness({
            fatal: pool.fatal,
            connections: pool.snapshot(),
            marketStatus: seen.marketStatus,
            startedAt,
            now: Date.now(),
            silentAfterMs: settings.silentAfterMs,
          }),
    stats: () => ingestorStats(graph),
  };
}

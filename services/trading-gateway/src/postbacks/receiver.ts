/**
 * The postback receiver as one unit: options, the write-ahead log (opened first: what it still
 * holds is replayed before anything new), the duplicate check seeded from the table, the Kafka
 * writer, the pipeline, the dead-letter table, metrics, the live hub, reconciliation, and the
 * routes. Use
 * `await postbackRoutes(app, options)` inside the gateway's app factory (or `app.register` it); it
 * closes with the app. `createPostbackReceiver` + `registerPostbackRoutes` split the two steps.
 */

import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { writeDeadLetters } from './dead-letters.js';
import { PostbackError } from './errors.js';
import { ORDER_EVENT_COLUMNS, recentEventKeys, storedEventKeys, toRow } from './events-table.js';
import { createKafkaWriter } from './kafka-writer.js';
import {
  type PostbackReceiverOptions,
  type ResolvedReceiverOptions,
  resolveReceiverOptions,
} from './options.js';
import { type OrderEvent, toWire } from './order-event.js';
import { OrderEventPipeline, type PipelineStats, type PreparedEvent } from './pipeline.js';
import { createReceiverMetrics } from './receiver-metrics.js';
import { type RefusalCounters, registerReceiverRoutes } from './receiver-routes.js';
import { type ReconcileResult, reconcileOrders } from './reconcile.js';
import { SeenKeys } from './seen-keys.js';
import { registerStreamRoutes } from './stream-routes.js';
import { UpdateHub } from './update-hub.js';
import { WriteAheadLog } from './wal.js';

export interface ReceiverStats extends PipelineStats {
  refused: RefusalCounters;
  streamClients: number;
  streamDropped: number;
  reconcileRuns: number;
  reconcileErrors: number;
}

export interface PostbackReceiver {
  readonly options: ResolvedReceiverOptions;
  readonly pipeline: OrderEventPipeline;
  readonly hub: UpdateHub;
  /** Live counters of refused postbacks (the routes count into them). */
  readonly refusals: RefusalCounters;
  /** Where the receiver's metrics are (the given registry, or one of its own). */
  readonly registry: Registry;
  stats(): ReceiverStats;
  /** Rebuilds missing transitions from the order book; PostbackError without a broker client. */
  reconcile(): Promise<ReconcileResult>;
  /**
   * Ends streams, flushes for up to `graceMs`, disconnects Kafka; answers how many records are
   * left unstored (they stay in the write-ahead log for the next start).
   */
  close(graceMs?: number): Promise<number>;
}

/** Reconciliation runs one at a time: a second caller shares the run in progress; runs are counted. */
function oneRunAtATime(start: () => Promise<ReconcileResult>): {
  run: () => Promise<ReconcileResult>;
  readonly running: Promise<ReconcileResult> | undefined;
  readonly ok: number;
  readonly failed: number;
} {
  let running: Promise<ReconcileResult> | undefined;
  let ok = 0;
  let failed = 0;
  return {
    run() {
      running ??= start()
        .then(
          (r) => {
            ok += 1;
            return r;
          },
          (error: unknown) => {
            failed += 1;
            throw error;
          },
        )
        .finally(() => {
          running = undefined;
        });
      return running;
    },
    get running() {
      return running;
    },
    get ok() {
      return ok;
    },
    get failed() {
      return failed;
    },
  };
}

/** Newly stored updates go to the live streams, then to whoever asked to be told (onStored). */
function publishStored(
  hub: UpdateHub,
  events: readonly PreparedEvent[],
  onStored: ((events: readonly OrderEvent[]) => void) | undefined,
): void {
  const stored = events.map((p) => p.event);
  hub.publish(
    stored,
    events.map((p) => p.seq),
  );
  onStored?.(stored);
}

export async function createPostbackReceiver(input: PostbackReceiverOptions): Promise<PostbackReceiver> {
  const options = resolveReceiverOptions(input);
  const lane = options.store.internal;
  // The log first: if its directory cannot be used, nothing is acknowledged at all.
  const { wal, pending } = await WriteAheadLog.open({
    dir: options.walDir,
    maxEntries: options.maxQueue,
    maxBytes: options.walMaxBytes,
    segmentBytes: options.walSegmentBytes,
    maxBodyBytes: options.bodyLimit,
  });
  const seen = new SeenKeys(options.dedupCapacity);
  // After a restart the duplicate check starts from what the table already holds.
  for (const key of (await recentEventKeys(lane, options.table, options.dedupCapacity)).reverse())
    seen.add(key);
  const kafka = createKafkaWriter({
    brokers: options.kafkaBrokers,
    topic: options.topic,
    clientId: options.kafkaClientId,
    partitions: options.topicPartitions,
  });
  const hub = new UpdateHub(options.maxStreamClients, options.maxStreamClientsPerKey);
  const pipeline = new OrderEventPipeline(options, seen, wal, {
    prepare: (event, seq) => ({
      event,
      seq,
      wire: JSON.stringify(toWire(event, seq)),
      row: toRow(event, seq),
    }),
    kafka: (events) => kafka.send(events.map((p) => ({ key: p.event.orderId, value: p.wire }))),
    storedKeys: (events) =>
      storedEventKeys(
        lane,
        options.table,
        events.map((p) => p.event),
      ),
    clickhouse: (events) =>
      lane.insertRows(
        options.table,
        ORDER_EVENT_COLUMNS,
        events.map((p) => p.row),
      ),
    deadLetters: (letters) => writeDeadLetters(lane, options.deadLetterTable, letters, Date.now()),
    probe: async () => {
      await lane.rows('SELECT 1');
      return true;
    },
    published: (events) => publishStored(hub, events, options.onStored),
  });
  pipeline.restore(pending);
  const refused: RefusalCounters = { secret: 0, source: 0, malformed: 0, busy: 0, walFailed: 0 };
  const registry = options.registry ?? new Registry();
  createReceiverMetrics(registry, () => ({ pipeline: pipeline.stats(), refused }));
  const broker = options.broker;
  // Started only through `reconcile`, which checks that a broker client is configured.
  const runs = oneRunAtATime(() =>
    reconcileOrders({
      broker: broker as NonNullable<typeof broker>,
      pipeline,
      store: lane,
      table: options.table,
    }),
  );
  const reconcile = (): Promise<ReconcileResult> =>
    broker
      ? runs.run()
      : Promise.reject(new PostbackError('RECONCILE_FAILED', 'no broker client configured', { status: 503 }));
  const timer =
    options.reconcileIntervalMs > 0
      ? setInterval(() => void reconcile().catch(() => undefined), options.reconcileIntervalMs)
      : undefined;
  timer?.unref();
  let closed: Promise<number> | undefined;
  return {
    options,
    pipeline,
    hub,
    refusals: refused,
    registry,
    stats: () => ({
      ...pipeline.stats(),
      refused: { ...refused },
      streamClients: hub.size,
      streamDropped: hub.dropped,
      reconcileRuns: runs.ok,
      reconcileErrors: runs.failed,
    }),
    reconcile,
    close(graceMs = 5_000) {
      closed ??= (async () => {
        if (timer) clearInterval(timer);
        hub.close();
        await runs.running?.catch(() => undefined);
        const left = await pipeline.close(graceMs);
        await kafka.close().catch(() => undefined);
        return left;
      })();
      return closed;
    },
  };
}

/** Registers the receiver's routes on `app` and ends its streams when the app closes. */
export function registerPostbackRoutes(app: FastifyInstance, receiver: PostbackReceiver): void {
  registerReceiverRoutes(app, receiver.options, receiver.pipeline, receiver.refusals);
  registerStreamRoutes(app, receiver.options, receiver.hub, () => receiver.reconcile());
  // Open SSE responses would hold app.close() forever; end them first.
  app.addHook('preClose', async () => receiver.hub.close());
}

/** Creates the receiver, registers its routes and closes it with the app. */
export async function postbackRoutes(
  app: FastifyInstance,
  options: PostbackReceiverOptions,
): Promise<PostbackReceiver> {
  const receiver = await createPostbackReceiver(options);
  registerPostbackRoutes(app, receiver);
  app.addHook('onClose', async () => {
    await receiver.close();
  });
  return receiver;
}

import { RECORD_TYPE_BY_CODE } from '@feedpipe/codec';
import { TOPIC_KINDS, topicKindOf } from '@feedpipe/contracts';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Ingestor metrics. Counted per chunk or per frame event, never per packet on the hot path. */
export interface IngestorMetrics {
  frames: Counter;
  bytes: Counter;
  framesUndecoded: Counter<'reason'>;
  packets: Counter<'type'>;
  malformed: Counter;
  unknown: Counter;
  noDataYet: Counter;
  repeatedTrades: Counter;
  unknownQuantities: Counter;
  produced: Counter<'topic'>;
  decodeSeconds: Histogram;
  produceSeconds: Histogram;
  ackLatencySeconds: Histogram;
  bufferedBytes: Gauge;
  bufferFull: Counter;
  kafkaErrors: Counter;
  producerResets: Counter;
  connections: Gauge<'state'>;
  reconnects: Counter;
  subscriptions: Gauge<'kind'>;
  subscriptionChanges: Counter<'kind' | 'action' | 'source'>;
  subscriptionChangesRefused: Counter<'reason'>;
  feedErrors: Counter<'code'>;
  textFrames: Counter;
  retries: Counter<'cause'>;
  gaps: Counter<'cause'>;
  gapRecordsPending: Gauge;
  gapRecordsDropped: Counter;
  tokenRenewals: Counter<'outcome'>;
  tokenUnrenewable: Gauge;
  marketStatus: Gauge;
}

/**
 * Why a frame read from a socket was not (entirely) decoded (ingestor_frames_undecoded_total):
 * - text: a text message (the feed is binary; skipped);
 * - malformed: a binary message whose decoding stopped at a bad packet (the rest of it is lost);
 * - stopped: a message that arrived on a socket closed because the ingestor stops;
 * - dropped: a message that arrived on a socket given up for a reconnect (not yet open, or not closed
 *   by the server within the drain time after Disconnect);
 * - worker_failed: a chunk of messages that no decode worker could decode, however often tried.
 */
export const UNDECODED_REASONS = ['text', 'malformed', 'stopped', 'dropped', 'worker_failed'] as const;
export type UndecodedReason = (typeof UNDECODED_REASONS)[number];

const PACKET_TYPE_BY_CODE: Readonly<Record<number, string>> = {
  1: 'trade',
  3: 'ohlc',
  29: 'market_status',
  32: 'prev_close',
  33: 'circuit_limit',
  36: 'week52',
  50: 'error',
};

export function packetTypeLabel(code: number): string {
  return PACKET_TYPE_BY_CODE[code] ?? 'unknown';
}

const REFERENCE_KIND = TOPIC_KINDS.indexOf('reference');
/** Message codes of the packets that go to the reference topic. */
const REFERENCE_CODES: ReadonlySet<number> = new Set(
  Object.entries(RECORD_TYPE_BY_CODE)
    .filter(([, type]) => topicKindOf(type) === 'reference')
    .map(([code]) => Number(code)),
);

/**
 * "No data yet" packets of one chunk (zero-filled reference packets for security id 0, which the
 * codec decodes but turns into no record: @feedpipe/codec wire/no-data-yet.ts). A chunk's result
 * counts its decoded packets by code and its produced records by topic, and nothing else keeps a
 * reference packet out of Kafka, so the difference on the reference topic is exactly their number.
 */
export function noDataYetOf(
  byCode: ReadonlyArray<readonly [number, number]>,
  produced: readonly number[],
): number {
  let referencePackets = 0;
  for (const [code, count] of byCode) if (REFERENCE_CODES.has(code)) referencePackets += count;
  return Math.max(0, referencePackets - (produced[REFERENCE_KIND] ?? 0));
}

type Registers = Registry[];

/** Socket-side traffic: messages and bytes received. */
function trafficMetrics(registers: Registers) {
  return {
    frames: new Counter({ name: 'ingestor_frames_total', help: 'WebSocket messages received', registers }),
    bytes: new Counter({
      name: 'ingestor_bytes_total',
      help: 'Bytes of WebSocket messages received',
      registers,
    }),
    // Every reason is exported from the start (at 0), so an alert on it sees a series before the
    // first loss and a dashboard shows 0 rather than nothing.
    framesUndecoded: (() => {
      const counter = new Counter({
        name: 'ingestor_frames_undecoded_total',
        help: 'WebSocket messages read from a feed socket and not (entirely) decoded, by reason: text (not binary), malformed (stopped at a bad packet), stopped (arrived after stop), dropped (on a socket given up for a reconnect), worker_failed (their chunk could not be decoded)',
        labelNames: ['reason'],
        registers,
      });
      for (const reason of UNDECODED_REASONS) counter.inc({ reason }, 0);
      return counter;
    })(),
  };
}

/** Decode and produce: packets by type, records by topic, timings, the in-flight buffer, Kafka faults. */
function pipelineMetrics(registers: Registers) {
  const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  return {
    packets: new Counter({
      name: 'ingestor_packets_total',
      help: 'Packets decoded, by packet type',
      labelNames: ['type'],
      registers,
    }),
    malformed: new Counter({
      name: 'ingestor_malformed_packets_total',
      help: 'Malformed packets (frame stopped)',
      registers,
    }),
    unknown: new Counter({
      name: 'ingestor_unknown_packets_total',
      help: 'Packets of unknown codes (skipped)',
      registers,
    }),
    noDataYet: new Counter({
      name: 'ingestor_no_data_yet_packets_total',
      help: 'Zero-filled "no data yet" reference packets (security id 0): decoded, not produced',
      registers,
    }),
    repeatedTrades: new Counter({
      name: 'ingestor_repeated_trades_total',
      help: 'Trades sent again (a resubscription snapshot repeating the last trade after a reconnect): not produced',
      registers,
    }),
    unknownQuantities: new Counter({
      name: 'ingestor_trade_quantities_unknown_total',
      help: "Trades produced with quantity null: the instrument's previous trade unknown to the ingestor (first after a cold start, crash or failover, or a late trade)",
      registers,
    }),
    produced: new Counter({
      name: 'ingestor_records_produced_total',
      help: 'Records acknowledged by Kafka, by topic',
      labelNames: ['topic'],
      registers,
    }),
    decodeSeconds: new Histogram({
      name: 'ingestor_decode_batch_seconds',
      help: 'Decode and serialise time of one chunk on a worker',
      buckets: latencyBuckets,
      registers,
    }),
    produceSeconds: new Histogram({
      name: 'ingestor_produce_seconds',
      help: 'Kafka send time of one chunk, retries included',
      buckets: latencyBuckets,
      registers,
    }),
    ackLatencySeconds: new Histogram({
      name: 'ingestor_receive_to_ack_seconds',
      help: 'From a frame arriving on the socket to Kafka acknowledging its records',
      buckets: latencyBuckets,
      registers,
    }),
    bufferedBytes: new Gauge({
      name: 'ingestor_buffered_bytes',
      help: 'Bytes received and not yet acknowledged by Kafka',
      registers,
    }),
    bufferFull: new Counter({
      name: 'ingestor_buffer_full_total',
      help: 'Times the in-flight buffer reached its bound (sockets paused)',
      registers,
    }),
    kafkaErrors: new Counter({
      name: 'ingestor_kafka_errors_total',
      help: 'Failed Kafka send attempts (retried)',
      registers,
    }),
    producerResets: new Counter({
      name: 'ingestor_producer_resets_total',
      help: 'Kafka producers replaced with a chunk unacknowledged (part of it may be in Kafka twice; the sink drops such records by source identity)',
      registers,
    }),
  };
}

/** The feed connections: states, reconnects, subscriptions, feed errors, retries. */
function connectionMetrics(registers: Registers) {
  return {
    connections: new Gauge({
      name: 'ingestor_connections',
      help: 'Feed connections by state',
      labelNames: ['state'],
      registers,
    }),
    reconnects: new Counter({
      name: 'ingestor_reconnects_total',
      help: 'Reconnects after a lost connection',
      registers,
    }),
    subscriptions: new Gauge({
      name: 'ingestor_subscriptions',
      help: 'Instruments subscribed, by kind',
      labelNames: ['kind'],
      registers,
    }),
    subscriptionChanges: new Counter({
      name: 'ingestor_subscription_changes_total',
      help: 'Instruments subscribed or unsubscribed while running, by kind, action (add, remove) and source (ops_route, universe_file, api)',
      labelNames: ['kind', 'action', 'source'],
      registers,
    }),
    subscriptionChangesRefused: new Counter({
      name: 'ingestor_subscription_changes_refused_total',
      help: 'Subscription changes refused, by reason (invalid, limit, unauthenticated)',
      labelNames: ['reason'],
      registers,
    }),
    feedErrors: new Counter({
      name: 'ingestor_feed_errors_total',
      help: 'Feed error packets (805-809) and refused upgrades (HTTP status), by code',
      labelNames: ['code'],
      registers,
    }),
    textFrames: new Counter({
      name: 'ingestor_text_frames_total',
      help: 'Text WebSocket messages received (the feed is binary; skipped)',
      registers,
    }),
    retries: new Counter({
      name: 'ingestor_connect_retries_total',
      help: 'Connection attempts scheduled after a failure, by cause (transient, evicted, blocked, budget)',
      labelNames: ['cause'],
      registers,
    }),
  };
}

/** The ledger of gaps, the token's renewals, the market's state. */
function continuityMetrics(registers: Registers) {
  return {
    gaps: new Counter({
      name: 'ingestor_gaps_total',
      help: "Closed intervals in which a connection's subscriptions were not live, by cause (one gap record per instrument each)",
      labelNames: ['cause'],
      registers,
    }),
    gapRecordsPending: new Gauge({
      name: 'ingestor_gap_records_pending',
      help: 'Gap records not yet acknowledged by Kafka',
      registers,
    }),
    gapRecordsDropped: new Counter({
      name: 'ingestor_gap_records_dropped_total',
      help: 'Gap records dropped at the bound of those waiting for Kafka',
      registers,
    }),
    tokenRenewals: new Counter({
      name: 'ingestor_token_renewals_total',
      help: 'Refused feed tokens replaced, by outcome: renewed (by this process), adopted (renewed elsewhere), failed',
      labelNames: ['outcome'],
      registers,
    }),
    tokenUnrenewable: new Gauge({
      name: 'ingestor_token_unrenewable',
      help: '1 when the feed refused the token and no renewed one can come (every connection stopped)',
      registers,
    }),
    marketStatus: new Gauge({
      name: 'ingestor_market_status',
      help: 'The last MarketStatus value of the feed (-1 before the first)',
      registers,
    }),
  };
}

export function createIngestorMetrics(registry: Registry): IngestorMetrics {
  const registers = [registry];
  // Registered in this order, so /metrics lists them as before the split.
  const metrics = {
    ...trafficMetrics(registers),
    ...pipelineMetrics(registers),
    ...connectionMetrics(registers),
    ...continuityMetrics(registers),
  };
  metrics.marketStatus.set(-1);
  return metrics;
}

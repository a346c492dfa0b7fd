/** Options of the postback receiver, stream and reconciliation; validated once, unknown keys refused. */
import type { BrokerClient } from '@feedpipe/broker-api';
import { type OptionsSchema, type OptionValues, readOptions } from '@feedpipe/config';
import { DEFAULT_ORDER_UPDATES_TOPIC, ORDER_UPDATES_PARTITIONS, SERVICE_TABLES } from '@feedpipe/contracts';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { configError } from './errors.js';
import type { OrderEvent } from './order-event.js';
import { parseAllowlist } from './source-guard.js';
import type { OrderVisibility } from './visibility.js';

export interface PostbackReceiverOptions {
  /** Where the order-events table lives (migration 005 applied). Required. */
  store: Store;
  /** Kafka bootstrap brokers. Required, non-empty. */
  kafkaBrokers: readonly string[];
  /**
   * Directory of the write-ahead log (created if missing). A postback is answered 202 only once
   * it is synced here; what is not yet stored is replayed from it on start. Give each receiver
   * its own directory on a persistent disk. Required.
   */
  walDir: string;
  /**
   * Shared secret. Preferred: an HMAC-SHA256 of the body in `x-postback-signature`
   * (`sha256=<hex>`) or the secret in the `x-postback-secret` header, sent by a relay you run;
   * the service itself can only be given a URL, so `/postbacks/orders/<secret>` stays accepted
   * while `allowSecretInPath` is true. Required: 16-256 characters of [A-Za-z0-9._~-].
   */
  secret: string;
  /** Accept the secret as the last path segment (the service's only way). Default true. */
  allowSecretInPath?: boolean;
  /** Source addresses allowed to post (IPs or CIDRs, v4 or v6). Default: any source. */
  allowlist?: readonly string[];
  /** Kafka topic of order updates. Default 'orders.updates'. */
  topic?: string;
  /** Partitions when the receiver creates the topic. Default 3. */
  topicPartitions?: number;
  /** Order-events table. Default 'market.order_events'. */
  table?: string;
  /** Records accepted (in the log) but not yet stored; beyond it postbacks get 503. Default 10,000. */
  maxQueue?: number;
  /** Bytes of records accepted but not yet stored; beyond it postbacks get 503. Default 64 MiB. */
  walMaxBytes?: number;
  /** Size at which the log starts a new segment file. Default 8 MiB. */
  walSegmentBytes?: number;
  /** Deepest object/array nesting a body may have; deeper gets 400. Default 32. */
  maxBodyDepth?: number;
  /** Table of postbacks that cannot be stored. Default 'market.postback_dead_letters'. */
  deadLetterTable?: string;
  /** prom-client registry for the receiver's metrics (the gateway's). Default: a registry of its own. */
  registry?: Registry;
  /** Events per Kafka send and ClickHouse insert. Default 500. */
  batchSize?: number;
  /** Longest wait before a partial batch is flushed. Default 20 ms. */
  flushIntervalMs?: number;
  /** Largest wait between retries of a failed batch. Default 5,000 ms. */
  retryMaxMs?: number;
  /** Event keys remembered for duplicate detection. Default 100,000. */
  dedupCapacity?: number;
  /** Live stream clients at once. Default 100. */
  maxStreamClients?: number;
  /**
   * Live stream clients of one API key at once (at most `maxStreamClients`); past it the key gets
   * 429 STREAM_KEY_FULL while other keys still connect. Default 10.
   */
  maxStreamClientsPerKey?: number;
  /** Bytes a stream client may lag behind before it is dropped. Default 1 MiB. */
  streamBufferBytes?: number;
  /** Largest postback body (at most 512 KiB, under Kafka's message limit). Default 64 KiB. */
  bodyLimit?: number;
  /** Client of the service for reconciliation. Default: none (reconciliation unavailable). */
  broker?: BrokerClient;
  /** Period of automatic reconciliation (needs `broker`); 0 = only when asked. Default 0. */
  reconcileIntervalMs?: number;
  /** Kafka client id. Default 'trading-gateway-postbacks'. */
  kafkaClientId?: string;
  /**
   * Which orders' updates each request may see (the gateway's ownership: a key its own orders).
   * Default: every request sees every update.
   */
  visibility?: OrderVisibility;
  /**
   * Told of every batch of newly stored updates, after the table has them (the gateway's fill
   * recorder reads the trade book when one shows a fill). Default: nobody.
   */
  onStored?: (events: readonly OrderEvent[]) => void;
}

/** What the receiver is handed rather than told: its store, clients, registry and callbacks. */
type ReceiverPorts = 'store' | 'kafkaBrokers' | 'registry' | 'broker' | 'visibility' | 'onStored';

/** The receiver's data alone: the gateway's `config.postbacks`. */
export type PostbackConfig = Omit<PostbackReceiverOptions, ReceiverPorts>;

export interface ResolvedReceiverOptions {
  readonly store: Store;
  readonly kafkaBrokers: readonly string[];
  readonly walDir: string;
  readonly secret: string;
  readonly allowSecretInPath: boolean;
  readonly allowlist: ReturnType<typeof parseAllowlist> | undefined;
  readonly topic: string;
  readonly topicPartitions: number;
  readonly table: string;
  readonly maxQueue: number;
  readonly walMaxBytes: number;
  readonly walSegmentBytes: number;
  readonly maxBodyDepth: number;
  readonly deadLetterTable: string;
  readonly registry: Registry | undefined;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  readonly retryMaxMs: number;
  readonly dedupCapacity: number;
  readonly maxStreamClients: number;
  readonly maxStreamClientsPerKey: number;
  readonly streamBufferBytes: number;
  readonly bodyLimit: number;
  readonly broker: BrokerClient | undefined;
  readonly reconcileIntervalMs: number;
  readonly kafkaClientId: string;
  readonly visibility: OrderVisibility | undefined;
  readonly onStored: ((events: readonly OrderEvent[]) => void) | undefined;
}

const TABLE = {
  kind: 'pattern',
  pattern: /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/,
  allowed: '[database.]name',
} as const;
/** Kafka's default message limit is 1 MiB; a body plus its envelope must stay well under it. */
const MAX_BODY_LIMIT = 512 * 1024;
const COUNT = { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER } as const;

/**
 * The receiver's data (what the gateway takes as config.postbacks), with ranges and defaults
 * (PostbackReceiverOptions documents each). The ports it is handed besides are in RECEIVER_OPTIONS.
 */
export const POSTBACK_CONFIG = {
  walDir: {
    kind: 'pattern',
    pattern: /\S/,
    allowed: 'a directory of its own on a persistent disk',
    required: true,
  },
  // The secret itself never goes into a message (the reader names the key, never the value).
  secret: {
    kind: 'pattern',
    pattern: /^[A-Za-z0-9._~-]{16,256}$/,
    allowed: '16-256 characters of A-Z a-z 0-9 . _ ~ -',
    required: true,
  },
  allowSecretInPath: { kind: 'boolean', default: true },
  allowlist: { kind: 'list' },
  topic: {
    kind: 'pattern',
    pattern: /^[A-Za-z0-9._-]{1,249}$/,
    allowed: 'a valid Kafka topic name',
    default: DEFAULT_ORDER_UPDATES_TOPIC,
  },
  topicPartitions: { ...COUNT, default: ORDER_UPDATES_PARTITIONS },
  table: { ...TABLE, default: SERVICE_TABLES.orderEvents.name },
  maxQueue: { ...COUNT, default: 10_000 },
  walMaxBytes: { ...COUNT, default: 64 * 1024 * 1024 },
  walSegmentBytes: { ...COUNT, default: 8 * 1024 * 1024 },
  maxBodyDepth: { kind: 'integer', min: 1, max: 1_000, default: 32 },
  deadLetterTable: { ...TABLE, default: SERVICE_TABLES.postbackDeadLetters.name },
  batchSize: { ...COUNT, default: 500 },
  flushIntervalMs: { ...COUNT, default: 20 },
  retryMaxMs: { ...COUNT, default: 5_000 },
  dedupCapacity: { ...COUNT, default: 100_000 },
  maxStreamClients: { ...COUNT, default: 100 },
  // Default 10, or the total when that is smaller.
  maxStreamClientsPerKey: COUNT,
  streamBufferBytes: { ...COUNT, default: 1024 * 1024 },
  bodyLimit: { kind: 'integer', min: 1, max: MAX_BODY_LIMIT, default: 64 * 1024 },
  reconcileIntervalMs: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 },
  kafkaClientId: { kind: 'string', default: 'trading-gateway-postbacks' },
} as const satisfies OptionsSchema;

/** Every option: the data, and the ports (store, clients, registry, callbacks). */
const RECEIVER_OPTIONS = {
  store: { kind: 'given', required: true },
  kafkaBrokers: { kind: 'list', minLength: 1, required: true },
  ...POSTBACK_CONFIG,
  registry: { kind: 'given' },
  broker: { kind: 'given' },
  visibility: { kind: 'given' },
  onStored: { kind: 'given' },
} as const satisfies OptionsSchema;

/** The rules across keys, each with its reason. */
function crossKeyProblem(o: OptionValues<typeof RECEIVER_OPTIONS>): string | undefined {
  // A share asked for beyond the total is a mistake.
  if (o.maxStreamClientsPerKey !== undefined && o.maxStreamClientsPerKey > o.maxStreamClients)
    return 'maxStreamClientsPerKey must be at most maxStreamClients';
  if (o.walMaxBytes < o.bodyLimit * 2) return 'walMaxBytes must be at least 2 x bodyLimit';
  if (o.reconcileIntervalMs > 0 && o.broker === undefined) return 'reconcileIntervalMs needs broker';
  if (o.kafkaBrokers.some((b) => typeof b !== 'string' || b === ''))
    return 'kafkaBrokers must be a non-empty array of host:port strings';
  return undefined;
}

export function resolveReceiverOptions(options: PostbackReceiverOptions): ResolvedReceiverOptions {
  const o = readOptions(RECEIVER_OPTIONS, options, { where: 'receiver options', fail: configError });
  const problem = crossKeyProblem(o);
  if (problem !== undefined) throw configError(problem);
  return {
    ...o,
    store: options.store,
    kafkaBrokers: [...options.kafkaBrokers],
    allowlist: options.allowlist === undefined ? undefined : parseAllowlist(options.allowlist),
    // The default share follows a smaller total.
    maxStreamClientsPerKey: o.maxStreamClientsPerKey ?? Math.min(10, o.maxStreamClients),
    registry: options.registry,
    broker: options.broker,
    visibility: options.visibility,
    onStored: options.onStored,
  };
}

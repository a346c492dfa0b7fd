/** Options of the postback receiver, stream and reconciliation; validated once, unknown keys refused. */
import type { BrokerClient } from '@feedpipe/broker-api';
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

const DEFAULTS = {
  topic: DEFAULT_ORDER_UPDATES_TOPIC,
  topicPartitions: ORDER_UPDATES_PARTITIONS,
  table: SERVICE_TABLES.orderEvents.name,
  maxQueue: 10_000,
  walMaxBytes: 64 * 1024 * 1024,
  walSegmentBytes: 8 * 1024 * 1024,
  maxBodyDepth: 32,
  deadLetterTable: SERVICE_TABLES.postbackDeadLetters.name,
  allowSecretInPath: true,
  batchSize: 500,
  flushIntervalMs: 20,
  retryMaxMs: 5_000,
  dedupCapacity: 100_000,
  maxStreamClients: 100,
  maxStreamClientsPerKey: 10,
  streamBufferBytes: 1024 * 1024,
  bodyLimit: 64 * 1024,
  reconcileIntervalMs: 0,
  kafkaClientId: 'trading-gateway-postbacks',
} as const;

const KEYS = [
  'store',
  'kafkaBrokers',
  'walDir',
  'secret',
  'allowlist',
  'broker',
  'registry',
  'visibility',
  'onStored',
  ...Object.keys(DEFAULTS),
];
const INT_KEYS = [
  'topicPartitions',
  'maxQueue',
  'walMaxBytes',
  'walSegmentBytes',
  'maxBodyDepth',
  'batchSize',
  'flushIntervalMs',
  'retryMaxMs',
  'dedupCapacity',
  'maxStreamClients',
  'maxStreamClientsPerKey',
  'streamBufferBytes',
  'bodyLimit',
  'reconcileIntervalMs',
] as const;

const TABLE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
const SECRET = /^[A-Za-z0-9._~-]{16,256}$/;
/** Kafka's default message limit is 1 MiB; a body plus its envelope must stay well under it. */
const MAX_BODY_LIMIT = 512 * 1024;
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

export function resolveReceiverOptions(options: PostbackReceiverOptions): ResolvedReceiverOptions {
  if (typeof options !== 'object' || options === null) throw configError('options must be an object');
  for (const k of Object.keys(options)) {
    if (!KEYS.includes(k)) throw configError(`unknown option "${k}" (allowed: ${KEYS.join(', ')})`);
  }
  if (!options.store || typeof options.store.internal?.rows !== 'function') {
    throw configError('store is required (createStore from @feedpipe/store)');
  }
  const brokers = options.kafkaBrokers;
  if (!Array.isArray(brokers) || brokers.length === 0 || brokers.some((b) => typeof b !== 'string' || !b)) {
    throw configError('kafkaBrokers must be a non-empty array of host:port strings');
  }
  // The secret itself never goes into a message.
  if (typeof options.secret !== 'string' || !SECRET.test(options.secret)) {
    throw configError('secret must be 16-256 characters of A-Z a-z 0-9 . _ ~ -');
  }
  const ints = Object.fromEntries(INT_KEYS.map((k) => [k, DEFAULTS[k]])) as Record<
    (typeof INT_KEYS)[number],
    number
  >;
  for (const k of INT_KEYS) {
    const v = options[k];
    if (v === undefined) continue;
    const min = k === 'reconcileIntervalMs' ? 0 : 1;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw configError(`${k} must be an integer >= ${min}`);
    }
    ints[k] = v;
  }
  if (ints.bodyLimit > MAX_BODY_LIMIT) throw configError(`bodyLimit must be at most ${MAX_BODY_LIMIT}`);
  if (ints.maxBodyDepth > 1_000) throw configError('maxBodyDepth must be at most 1000');
  // The default share follows a smaller total; a share asked for beyond the total is a mistake.
  if (options.maxStreamClientsPerKey === undefined)
    ints.maxStreamClientsPerKey = Math.min(ints.maxStreamClientsPerKey, ints.maxStreamClients);
  else if (ints.maxStreamClientsPerKey > ints.maxStreamClients)
    throw configError('maxStreamClientsPerKey must be at most maxStreamClients');
  if (ints.walMaxBytes < ints.bodyLimit * 2) throw configError('walMaxBytes must be at least 2 x bodyLimit');
  if (typeof options.walDir !== 'string' || options.walDir.trim() === '') {
    throw configError('walDir is required (a directory of its own on a persistent disk)');
  }
  const allowSecretInPath = options.allowSecretInPath ?? DEFAULTS.allowSecretInPath;
  if (typeof allowSecretInPath !== 'boolean') throw configError('allowSecretInPath must be a boolean');
  const deadLetterTable = options.deadLetterTable ?? DEFAULTS.deadLetterTable;
  if (typeof deadLetterTable !== 'string' || !TABLE.test(deadLetterTable)) {
    throw configError('deadLetterTable must be [database.]name');
  }
  if (options.registry !== undefined && typeof options.registry?.registerMetric !== 'function') {
    throw configError('registry must be a prom-client Registry');
  }
  const topic = options.topic ?? DEFAULTS.topic;
  if (typeof topic !== 'string' || !TOPIC.test(topic))
    throw configError('topic must be a valid Kafka topic name');
  const table = options.table ?? DEFAULTS.table;
  if (typeof table !== 'string' || !TABLE.test(table)) throw configError('table must be [database.]name');
  if (options.broker !== undefined && typeof options.broker?.orders?.list !== 'function') {
    throw configError('broker must be a BrokerClient');
  }
  if (ints.reconcileIntervalMs > 0 && options.broker === undefined) {
    throw configError('reconcileIntervalMs needs broker');
  }
  if (options.onStored !== undefined && typeof options.onStored !== 'function') {
    throw configError('onStored must be a function');
  }
  const kafkaClientId = options.kafkaClientId ?? DEFAULTS.kafkaClientId;
  if (typeof kafkaClientId !== 'string' || kafkaClientId === '')
    throw configError('kafkaClientId must be a string');
  return {
    store: options.store,
    kafkaBrokers: [...brokers],
    walDir: options.walDir,
    secret: options.secret,
    allowSecretInPath,
    deadLetterTable,
    registry: options.registry,
    allowlist: options.allowlist === undefined ? undefined : parseAllowlist(options.allowlist),
    topic,
    table,
    broker: options.broker,
    kafkaClientId,
    visibility: options.visibility,
    onStored: options.onStored,
    ...ints,
  };
}

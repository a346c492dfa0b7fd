/**
 * One Kafka reader per API instance feeding every live-stream client: @feedpipe/kafka-client's
 * TopicTail, group-less (each instance sees every record; nothing is committed or rebalanced),
 * from the latest offsets: a live stream shows what happens from now on; history is what the tick
 * routes are for. It starts with the first client and runs until the API stops. Values are passed
 * through as received (the decoded record JSON plus receivedAt), so fan-out costs a lookup and a
 * write per client.
 *
 * Admission is decided here, in add(), synchronously with the insertion, so concurrent requests
 * cannot overshoot: at most `maxClients` streams in all, and at most `maxClientsPerKey` for one API
 * key, so one key cannot take every slot from the others.
 */
import { TOPIC_KINDS, type TopicKind } from '@feedpipe/contracts';
import { type PartitionBatch, TopicTail } from '@feedpipe/kafka-client';
import type { ResolvedConfig } from '../config/config.js';
import { QueryApiError } from '../errors.js';

/** Longest wait for the tail to find its partitions' positions before a stream request gets 503. */
const START_TIMEOUT_MS = 30_000;

export interface LiveClient {
  /** The API key that opened the stream: its share of the slots, and its streams end on revocation. */
  keyId: string;
  /** Instruments followed; `status` events reach every client that asked for them. */
  securityIds: ReadonlySet<number>;
  kinds: ReadonlySet<TopicKind>;
  /** Delivers one event; false when the client could not take it (counted as dropped). */
  deliver(kind: TopicKind, data: string): void;
  /** Ends the stream from the server side (the key was revoked). */
  end(reason: string): void;
}

export interface LiveHubLimits {
  maxClients: number;
  maxClientsPerKey: number;
}

export class LiveHub {
  readonly #brokers: readonly string[];
  readonly #topics: ResolvedConfig['topics'];
  readonly #limits: LiveHubLimits;
  readonly #clients = new Set<LiveClient>();
  readonly #perKey = new Map<string, number>();
  readonly #kindOfTopic = new Map<string, TopicKind>();
  #tail: TopicTail | undefined;
  /** The tail being started: stop() ends its start at once instead of waiting out its bound. */
  #startingTail: TopicTail | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;
  delivered = 0;

  constructor(brokers: readonly string[], topics: ResolvedConfig['topics'], limits: LiveHubLimits) {
    this.#brokers = brokers;
    this.#limits = limits;
    this.#topics = topics;
    for (const kind of TOPIC_KINDS) this.#kindOfTopic.set(topics[kind], kind);
  }

  get enabled(): boolean {
    return this.#brokers.length > 0;
  }

  get clients(): number {
    return this.#clients.size;
  }

  get running(): boolean {
    return this.#tail !== undefined && this.#starting === undefined;
  }

  /** Streams open for one key. */
  clientsOf(keyId: string): number {
    return this.#perKey.get(keyId) ?? 0;
  }

  /**
   * Admits a client (or throws 503 when the stream is full, 429 when its key has its share) and
   * resolves once the tail knows every partition's position: it hands over what is produced from now on.
   */
  async add(client: LiveClient): Promise<void> {
    if (!this.enabled)
      throw new QueryApiError('STREAM_UNAVAILABLE', 'the live stream needs Kafka brokers (KAFKA_BROKERS)');
    const { maxClients, maxClientsPerKey } = this.#limits;
    if (this.clientsOf(client.keyId) >= maxClientsPerKey) {
      throw new QueryApiError(
        'RATE_LIMITED',
        `this API key already has its share of ${maxClientsPerKey} live streams open; close one first`,
        { retryable: true },
      );
    }
    if (this.#clients.size >= maxClients) {
      throw new QueryApiError('STREAM_UNAVAILABLE', `the stream has its maximum of ${maxClients} clients`, {
        retryable: true,
      });
    }
    this.#clients.add(client);
    this.#perKey.set(client.keyId, this.clientsOf(client.keyId) + 1);
    try {
      await this.#start();
    } catch (error) {
      this.remove(client);
      throw new QueryApiError('STREAM_UNAVAILABLE', 'the live stream cannot reach Kafka right now', {
        cause: error,
        retryable: true,
      });
    }
  }

  remove(client: LiveClient): void {
    if (!this.#clients.delete(client)) return;
    const left = this.clientsOf(client.keyId) - 1;
    if (left > 0) this.#perKey.set(client.keyId, left);
    else this.#perKey.delete(client.keyId);
  }

  /** Ends every stream of a key (revoked): each client's end() removes it through its close path. */
  endKey(keyId: string, reason: string): number {
    let ended = 0;
    for (const client of [...this.#clients]) {
      if (client.keyId !== keyId) continue;
      this.remove(client);
      client.end(reason);
      ended += 1;
    }
    return ended;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clients.clear();
    this.#perKey.clear();
    await this.#startingTail?.stop().catch(() => undefined);
    await this.#starting?.catch(() => undefined);
    await this.#tail?.stop().catch(() => undefined);
    this.#tail = undefined;
  }

  #start(): Promise<void> {
    if (this.#tail && !this.#starting) return Promise.resolve();
    this.#starting ??= this.#connect().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) throw new Error('live hub stopped');
    const tail = new TopicTail({
      brokers: this.#brokers,
      clientId: 'query-api-live',
      topics: TOPIC_KINDS.map((k) => this.#topics[k]),
      from: 'latest',
      // A live view: a record waits at most this long in the broker before it is handed over.
      maxWaitMs: 100,
      // Bounded: a broker that never answers fails the stream request with 503, not holds it open.
      startTimeoutMs: START_TIMEOUT_MS,
      eachBatch: (batch) => this.#fanOut(batch),
    });
    this.#startingTail = tail;
    try {
      await tail.start();
    } finally {
      this.#startingTail = undefined;
    }
    if (this.#stopped) {
      await tail.stop();
      throw new Error('live hub stopped');
    }
    this.#tail = tail;
  }

  /** Hands each record of a batch to the clients following its instrument (status: every client that asked). */
  #fanOut(batch: PartitionBatch): void {
    const kind = this.#kindOfTopic.get(batch.topic);
    if (kind === undefined || this.#clients.size === 0) return;
    for (let i = 0; i < batch.count; i++) {
      const value = batch.value(i);
      if (!value) continue;
      const id = Number(batch.key(i)?.toString() ?? 'NaN');
      const data = value.toString();
      for (const client of this.#clients) {
        if (!client.kinds.has(kind)) continue;
        if (kind !== 'status' && !client.securityIds.has(id)) continue;
        client.deliver(kind, data);
        this.delivered += 1;
      }
    }
  }
}

/**
 * One Kafka consumer per API instance feeding every live-stream client. The consumer joins a group
 * of its own (each instance must see every message) and starts at the latest offsets: a live
 * stream shows what happens from now on; history is what the tick routes are for. It starts with
 * the first client and runs until the API stops. Values are passed through as received (the
 * decoded record JSON plus receivedAt), so fan-out costs a lookup and a write per client.
 *
 * Admission is decided here, in add(), synchronously with the insertion, so concurrent requests
 * cannot overshoot: at most `maxClients` streams in all, and at most `maxClientsPerKey` for one API
 * key, so one key cannot take every slot from the others.
 */
import { randomUUID } from 'node:crypto';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { ResolvedConfig } from '../config/config.js';
import { QueryApiError } from '../errors.js';

/** Longest wait for the live consumer to join its group before a stream request gets 503. */
const JOIN_TIMEOUT_MS = 30_000;

export type LiveKind = 'trades' | 'ohlc' | 'reference' | 'status';
export const LIVE_KINDS: readonly LiveKind[] = ['trades', 'ohlc', 'reference', 'status'];

export interface LiveClient {
  /** The API key that opened the stream: its share of the slots, and its streams end on revocation. */
  keyId: string;
  /** Instruments followed; `status` events reach every client that asked for them. */
  securityIds: ReadonlySet<number>;
  kinds: ReadonlySet<LiveKind>;
  /** Delivers one event; false when the client could not take it (counted as dropped). */
  deliver(kind: LiveKind, data: string): void;
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
  readonly #kindOfTopic = new Map<string, LiveKind>();
  #consumer: Consumer | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;
  delivered = 0;

  constructor(brokers: readonly string[], topics: ResolvedConfig['topics'], limits: LiveHubLimits) {
    this.#brokers = brokers;
    this.#limits = limits;
    this.#topics = topics;
    for (const kind of LIVE_KINDS) this.#kindOfTopic.set(topics[kind], kind);
  }

  get enabled(): boolean {
    return this.#brokers.length > 0;
  }

  get clients(): number {
    return this.#clients.size;
  }

  get running(): boolean {
    return this.#consumer !== undefined && this.#starting === undefined;
  }

  /** Streams open for one key. */
  clientsOf(keyId: string): number {
    return this.#perKey.get(keyId) ?? 0;
  }

  /**
   * Admits a client (or throws 503 when the stream is full, 429 when its key has its share) and
   * resolves once the consumer has joined its group and will see messages produced from now on.
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
    await this.#starting?.catch(() => undefined);
    await this.#consumer?.disconnect().catch(() => undefined);
    this.#consumer = undefined;
  }

  #start(): Promise<void> {
    if (this.#consumer && !this.#starting) return Promise.resolve();
    this.#starting ??= this.#connect().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) throw new Error('live hub stopped');
    const kafka = new Kafka({
      clientId: 'query-api-live',
      brokers: [...this.#brokers],
      logLevel: logLevel.NOTHING,
      retry: { retries: 3 },
    });
    const consumer = kafka.consumer({ groupId: `query-api-live-${randomUUID()}`, maxWaitTimeInMs: 100 });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: LIVE_KINDS.map((k) => this.#topics[k]), fromBeginning: false });
      // Bounded: a group that never forms (a broker whose coordinator keeps loading, a consumer that
      // crashed) must fail the stream request with 503, not hold it open forever.
      let settle: (error?: Error) => void = () => undefined;
      const joined = new Promise<void>((resolve, reject) => {
        settle = (error) => (error ? reject(error) : resolve());
      });
      const offJoin = consumer.on(consumer.events.GROUP_JOIN, () => settle());
      const offCrash = consumer.on(consumer.events.CRASH, (event) =>
        settle(new Error(`live consumer crashed: ${String(event.payload.error?.message ?? 'unknown')}`)),
      );
      const timer = setTimeout(
        () => settle(new Error(`no group join within ${JOIN_TIMEOUT_MS} ms`)),
        JOIN_TIMEOUT_MS,
      );
      void joined
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(timer);
          offJoin();
          offCrash();
        });
      await consumer.run({
        eachBatch: async ({ batch }) => {
          const kind = this.#kindOfTopic.get(batch.topic);
          if (kind === undefined || this.#clients.size === 0) return;
          for (const message of batch.messages) {
            if (!message.value) continue;
            const id = Number(message.key?.toString() ?? 'NaN');
            const data = message.value.toString();
            for (const client of this.#clients) {
              if (!client.kinds.has(kind)) continue;
              if (kind !== 'status' && !client.securityIds.has(id)) continue;
              client.deliver(kind, data);
              this.delivered += 1;
            }
          }
        },
      });
      await joined;
      this.#consumer = consumer;
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  }
}

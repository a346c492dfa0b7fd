/**
 * One Kafka consumer per API instance feeding every live-stream client. The consumer joins a group
 * of its own (each instance must see every message) and starts at the latest offsets: a live
 * stream shows what happens from now on; history is what the tick routes are for. It starts with
 * the first client and runs until the API stops. Values are passed through as received (the
 * decoded record JSON plus receivedAt), so fan-out costs a lookup and a write per client.
 */
import { randomUUID } from 'node:crypto';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { ResolvedConfig } from '../config/config.js';
import { QueryApiError } from '../errors.js';

export type LiveKind = 'trades' | 'ohlc' | 'reference' | 'status';
export const LIVE_KINDS: readonly LiveKind[] = ['trades', 'ohlc', 'reference', 'status'];

export interface LiveClient {
  /** Instruments followed; `status` events reach every client that asked for them. */
  securityIds: ReadonlySet<number>;
  kinds: ReadonlySet<LiveKind>;
  /** Delivers one event; false when the client could not take it (counted as dropped). */
  deliver(kind: LiveKind, data: string): void;
}

export class LiveHub {
  readonly #brokers: readonly string[];
  readonly #topics: ResolvedConfig['topics'];
  readonly #clients = new Set<LiveClient>();
  readonly #kindOfTopic = new Map<string, LiveKind>();
  #consumer: Consumer | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;
  delivered = 0;

  constructor(brokers: readonly string[], topics: ResolvedConfig['topics']) {
    this.#brokers = brokers;
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

  /** Resolves once the consumer has joined its group and will see messages produced from now on. */
  async add(client: LiveClient): Promise<void> {
    if (!this.enabled)
      throw new QueryApiError('STREAM_UNAVAILABLE', 'the live stream needs Kafka brokers (KAFKA_BROKERS)');
    this.#clients.add(client);
    try {
      await this.#start();
    } catch (error) {
      this.#clients.delete(client);
      throw new QueryApiError('STREAM_UNAVAILABLE', 'the live stream cannot reach Kafka right now', {
        cause: error,
        retryable: true,
      });
    }
  }

  remove(client: LiveClient): void {
    this.#clients.delete(client);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clients.clear();
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
      const joined = new Promise<void>((resolve) => {
        const off = consumer.on(consumer.events.GROUP_JOIN, () => {
          off();
          resolve();
        });
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

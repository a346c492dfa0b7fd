/**
 * Sends replayed records to Kafka in batches: one send per topic per batch, awaited before the
 * next, so the records of a partition go in the order the replay read them (the copy rule of the
 * source identity needs it). Each record is laid out as the ingestor lays it out: keyed by security
 * id (0 for feed errors), the canonical JSON of @feedpipe/contracts with `receivedAt`, and the
 * `fp-src` and `fp-schema` headers. A batch Kafka does not take is sent again (the same records
 * with the same identities, so a part that did arrive is a copy to the sink); after the retries
 * the replay stops with REPLAY_PRODUCE_FAILED and says up to when everything was sent.
 */

import { recordToJson } from '@feedpipe/codec';
import {
  FEED_SCHEMA_IDS,
  type FeedTopics,
  SCHEMA_HEADER,
  SOURCE_HEADER,
  TOPIC_KINDS,
  type TopicKind,
  topicKindOf,
} from '@feedpipe/contracts';
import { JsonProducer, type JsonRecord } from '@feedpipe/kafka-client';
import { retry } from '@feedpipe/retry';
import { IngestorError } from '../errors.js';
import { identityBytes } from './replay-identity.js';
import type { ReplayGroup } from './replay-record.js';

/** Records held before a send at max speed: large batches, bounded memory (~a few MB). */
export const REPLAY_BATCH_RECORDS = 10_000;
/** Sends of one batch before the replay gives up: with the backoff's cap, about two minutes. */
const SEND_ATTEMPTS = 8;

export interface ReplayProducerOptions {
  brokers: string[];
  topics: Readonly<FeedTopics>;
  /** Kafka request timeout. Default 30 s. */
  requestTimeoutMs?: number;
  /** Told of each failed send before it is tried again. */
  onRetry?: (message: string) => void;
}

export class ReplayProducer {
  readonly #producer: JsonProducer;
  readonly #topics: Readonly<FeedTopics>;
  readonly #onRetry: ((message: string) => void) | undefined;
  readonly #pending = new Map<TopicKind, JsonRecord[]>(TOPIC_KINDS.map((kind) => [kind, []]));
  #pendingCount = 0;
  #pendingUpToMicros = 0;
  /** When the oldest record held was added (performance.now()). */
  #pendingSinceMs = 0;
  /** Receive time of the last group Kafka has taken whole. */
  #sentUpToMicros: number | undefined;
  /** Sends tried again after a failure: each may have left some records in Kafka twice (same identity). */
  retries = 0;
  /** Records Kafka has acknowledged, per topic kind. */
  readonly produced: Record<TopicKind, number> = { trades: 0, ohlc: 0, reference: 0, status: 0 };

  constructor(options: ReplayProducerOptions) {
    this.#producer = new JsonProducer({
      brokers: options.brokers,
      clientId: 'feedpipe-replay',
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    });
    this.#topics = options.topics;
    this.#onRetry = options.onRetry;
  }

  get pending(): number {
    return this.#pendingCount;
  }

  /** How long the oldest record held has waited (0 when none is held). */
  heldForMs(): number {
    return this.#pendingCount === 0 ? 0 : performance.now() - this.#pendingSinceMs;
  }

  get sentUpToMicros(): number | undefined {
    return this.#sentUpToMicros;
  }

  add(group: ReplayGroup): void {
    const receivedAt = group.receivedAtMicros;
    if (this.#pendingCount === 0) this.#pendingSinceMs = performance.now();
    for (const { record, identity } of group.records) {
      const kind = topicKindOf(record.type);
      (this.#pending.get(kind) as JsonRecord[]).push({
        key: String(record.type === 'error' ? 0 : record.securityId),
        value: Buffer.from(recordToJson(record, { receivedAt })),
        headers: { [SOURCE_HEADER]: identityBytes(identity), [SCHEMA_HEADER]: FEED_SCHEMA_IDS[kind] },
      });
    }
    this.#pendingCount += group.records.length;
    this.#pendingUpToMicros = receivedAt;
  }

  /** Sends what is held and resolves once Kafka acknowledged all of it. */
  async flush(): Promise<void> {
    if (this.#pendingCount === 0) return;
    for (const kind of TOPIC_KINDS) {
      const records = this.#pending.get(kind) as JsonRecord[];
      if (records.length === 0) continue;
      const topic = this.#topics[kind];
      await retry(() => this.#producer.send(topic, records), {
        attempts: SEND_ATTEMPTS,
        onRetry: (error, attempt, delayMs) => {
          this.retries += 1;
          this.#onRetry?.(
            `send of ${records.length} records to ${topic} failed (attempt ${attempt}), again in ${Math.round(delayMs)} ms: ${(error as Error).message}`,
          );
        },
      }).catch((error: unknown) => {
        const upTo = this.#sentUpToMicros;
        throw new IngestorError(
          'REPLAY_PRODUCE_FAILED',
          `Kafka did not take ${records.length} records for ${topic} after ${SEND_ATTEMPTS} attempts; everything received before ${upTo === undefined ? 'the first record' : new Date(upTo / 1000).toISOString()} is in Kafka: a replay from there (--from) picks up where this one stopped: ${(error as Error).message}`,
          { cause: error, retryable: true },
        );
      });
      this.produced[kind] += records.length;
      records.length = 0;
    }
    this.#pendingCount = 0;
    this.#sentUpToMicros = this.#pendingUpToMicros;
  }

  async close(): Promise<void> {
    await this.#producer.close();
  }
}

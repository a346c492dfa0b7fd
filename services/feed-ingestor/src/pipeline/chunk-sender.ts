/**
 * A decode worker's way into Kafka: one idempotent BatchProducer (@feedpipe/kafka-client, acks=all)
 * and the rules for getting a chunk's records acknowledged exactly once (docs/architecture.md,
 * "Exactly once into Kafka").
 *
 * - One chunk at a time. A set the broker has not fully acknowledged stays the producer's unfinished
 *   set; only that set may go next, because a new batch under sequence numbers the broker may
 *   already hold would be dropped as a duplicate or refused as out of order. Decoding and laying out
 *   the next chunks of the worker still overlap the send.
 * - While Kafka is slow or down, the chunk is sent again and again with the SAME producer id, epoch
 *   and sequences (the set keeps them), so the broker drops whatever part of an earlier attempt it
 *   had already appended; idempotence survives a broker restart (producer state is rebuilt from the
 *   log). Meanwhile the chunk stays here and the main thread's bounded buffer pushes back on the
 *   sockets: this is what bounds the loop, not a count (giving up would lose the chunk).
 * - Only when the broker lost this producer's state (sequence error, unknown producer id, fenced
 *   epoch) does the producer start over under a new id (`reset`). Whatever part of the chunk the
 *   broker had appended is then appended again: the one window for a copy, counted
 *   (`ingestor_producer_resets_total`) and recognised downstream by each record's source identity.
 */
import { BatchProducer, isKafkaClientError, type ProduceSet } from '@feedpipe/kafka-client';
import { retry } from '@feedpipe/retry';
import { LeaseFence } from '../leader/lease-fence.js';
import type { DecodeWorkerData } from './worker-protocol.js';

export interface Delivery {
  /** Attempts after the first, within and across sends (Kafka slow, down or refusing). */
  retries: number;
  /** Times the producer started over under a new id while delivering this chunk. */
  resets: number;
}

/** How long one `send` keeps retrying before the loop here takes over (and may say so). */
const DELIVERY_TIMEOUT_MS = 30_000;

export class ChunkSender {
  readonly #producer: BatchProducer;
  readonly #fence: LeaseFence | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(config: Pick<DecodeWorkerData, 'brokers' | 'clientId' | 'requestTimeoutMs' | 'fence'>) {
    // A standby's process (or one whose lease ran out) holds its chunks: only the leader sends.
    this.#fence = config.fence ? new LeaseFence(config.fence) : undefined;
    this.#producer = new BatchProducer({
      brokers: config.brokers,
      clientId: config.clientId,
      requestTimeoutMs: config.requestTimeoutMs,
      ackTimeoutMs: config.requestTimeoutMs,
      deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
      retryBackoffMs: 100,
      maxRetryBackoffMs: 2_000,
      autocreateTopics: true,
    });
  }

  /** Resolves once Kafka acknowledged every record of `set`; deliveries run one at a time. */
  deliver(set: ProduceSet): Promise<Delivery> {
    const turn = this.#queue.then(
      () => this.#deliverNow(set),
      () => this.#deliverNow(set),
    );
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** Waits for the delivery in progress, then closes the producer's connections. */
  async close(): Promise<void> {
    await this.#queue;
    await this.#producer.close();
  }

  async #deliverNow(set: ProduceSet): Promise<Delivery> {
    const producer = this.#producer;
    const retriesBefore = producer.stats.retries;
    let sends = 0;
    let resets = 0;
    let refusalsLogged = 0;
    await retry(
      async () => {
        // Checked right before every attempt, retries included: a process frozen mid-retry wakes
        // to a closed fence and holds the chunk.
        if (this.#fence && !this.#fence.open()) await this.#fence.whenOpen();
        sends += 1;
        await producer.send(set);
      },
      {
        // Unbounded on purpose (see above): the chunk is held until Kafka takes it.
        attempts: Number.POSITIVE_INFINITY,
        initialMs: 200,
        maxMs: 2_000,
        onRetry: async (error) => {
          if (isKafkaClientError(error) && error.code === 'PRODUCER_STATE_LOST') {
            resets += 1;
            // A reset that cannot reach the broker has still dropped the old id: the next send
            // asks for a new one.
            await producer.reset().catch(() => undefined);
          } else if (!isKafkaClientError(error) || !error.retriable) {
            // Refused for good (too large, not authorised, or a bug): retrying keeps the chunk and
            // its connection's order; the buffer fills and says so. Said here once per chunk.
            if (refusalsLogged++ === 0)
              process.stderr.write(`ingestor: Kafka refused a chunk: ${describe(error)}\n`);
          }
        },
      },
    );
    return { retries: producer.stats.retries - retriesBefore + (sends - 1), resets };
  }
}

function describe(error: unknown): string {
  if (isKafkaClientError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

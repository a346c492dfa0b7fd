/**
 * A plain producer of keyed JSON records (postbacks, tests), on @platformatic/kafka's Producer:
 * idempotent, acks=all, keys partitioned as Java's default partitioner does (murmur2), so a key
 * lands where any Java-compatible producer puts it.
 */
import type { OptionsSchema } from '@feedpipe/config';
import { murmur2, Producer } from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import { CONNECTION_OPTIONS, type ConnectionOptions, readClientOptions } from '../options.js';

export interface JsonRecord {
  /** Message key (partitioned by its murmur2 hash); without one, records go round robin. */
  key?: string;
  /** Serialised with JSON.stringify; a Buffer is taken as JSON the caller serialised already. */
  value: unknown;
  headers?: Readonly<Record<string, string | Buffer>>;
}

const JSON_PRODUCER_OPTIONS = {
  ...CONNECTION_OPTIONS,
  autocreateTopics: { kind: 'boolean', default: false },
} as const satisfies OptionsSchema;

export interface JsonProducerOptions extends ConnectionOptions {
  /** Let a produce create a missing topic. Default false. */
  autocreateTopics?: boolean;
}

/**
 * Java-compatible: the hash with its sign bit masked (the library then takes it modulo the count);
 * keyless records round robin.
 */
function javaPartitioner(): (message: unknown, key: Buffer | undefined) => number {
  let next = 0;
  return (_message, key) => {
    if (key && key.length > 0) return murmur2(key, false) & 0x7fffffff;
    next = (next + 1) & 0x7fffffff;
    return next;
  };
}

export class JsonProducer {
  readonly #producer: Producer;

  constructor(options: JsonProducerOptions) {
    const o = readClientOptions('JSON producer', JSON_PRODUCER_OPTIONS, options);
    this.#producer = new Producer({
      clientId: o.clientId,
      bootstrapBrokers: [...o.brokers],
      idempotent: true,
      timeout: o.requestTimeoutMs,
      autocreateTopics: o.autocreateTopics,
      retries: 5,
      retryDelay: 250,
      partitioner: javaPartitioner(),
    });
  }

  /** Sends the records to `topic` and resolves once the broker acknowledged all of them. */
  async send(topic: string, records: readonly JsonRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.#producer.send({
        messages: records.map((r) => ({
          topic,
          key: r.key === undefined ? undefined : Buffer.from(r.key),
          value: Buffer.isBuffer(r.value) ? r.value : Buffer.from(JSON.stringify(r.value)),
          headers: r.headers
            ? new Map(
                Object.entries(r.headers).map(([k, v]) => [
                  Buffer.from(k),
                  Buffer.isBuffer(v) ? v : Buffer.from(v),
                ]),
              )
            : undefined,
        })),
      });
    } catch (error) {
      throw new KafkaClientError(
        'DELIVERY_TIMEOUT',
        `send of ${records.length} records to ${topic} failed: ${describe(error)}`,
        {
          retriable: true,
          cause: error,
        },
      );
    }
  }

  async close(): Promise<void> {
    await this.#producer.close(true).catch(() => undefined);
  }
}

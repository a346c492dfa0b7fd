import type { FeedTopics, PerTopicKind } from '@feedpipe/contracts';

/** Configuration every decode worker receives once, as piscina's workerData. */
export interface DecodeWorkerData {
  brokers: string[];
  topics: FeedTopics;
  clientId: string;
  /** This ingestor run's number in every record's source identity (@feedpipe/contracts, source-identity.ts). */
  sourceRun: number;
  /** Kafka request timeout per produce call. */
  requestTimeoutMs: number;
  /** The leader's lease (leader/lease-fence.ts): nothing is sent while it is closed. Absent: no gate. */
  fence?: SharedArrayBuffer;
}

/** What a worker reports for one chunk after Kafka acknowledged all of its records. */
export interface ChunkResult {
  connection: number;
  sequence: number;
  frames: number;
  packets: number;
  malformed: number;
  unknown: number;
  /** [code, count] pairs of decoded packets. */
  byCode: Array<[number, number]>;
  /** Records acknowledged per topic kind, in TOPIC_KINDS order. */
  produced: PerTopicKind<number>;
  /** Trades not produced: the same trade as the instrument's previous one, sent again. */
  repeats: number;
  /**
   * The last trade of each instrument in the chunk: [securityId, volume, ltt, receivedAtMicros]
   * quadruples (chunk-encoder.ts, TRADED_STRIDE): which instruments traded, for the stale watch
   * and the repeat guard of later chunks.
   */
  traded: Float64Array;
  /**
   * The quantity bases the chunk started or moved (chunk-quantities.ts, BASE_STRIDE): the main
   * thread's bases of the connection take them over for its next chunk.
   */
  movedBases: Float64Array;
  /** Trades produced with their quantity unknown (null). */
  unknownQuantities: number;
  /** When Kafka acknowledged the last send of the chunk, microseconds since the epoch. */
  ackedAtMicros: number;
  decodeMicros: number;
  produceMicros: number;
  /** Produce attempts that failed and were retried (Kafka slow or down). */
  produceRetries: number;
  /**
   * Producers replaced while sending this chunk (sequence error, or Kafka down for long). Each may
   * have re-appended part of the chunk under a new producer id: the sink drops those records by
   * their source identity.
   */
  producerResets: number;
}

export declare const KAFKA_LIB_DIR: string;
export interface LocalKafkaOptions {
  /** Where the broker keeps its log segments and its own log file. Wiped on start. */
  dataDir: string;
  /** Maximum JVM heap. Default 512m: enough for tests and the demo, bounded on a 2-core machine. */
  heap?: string;
  /** Default partitions for auto-created topics. Default 6. */
  partitions?: number;
  /** How long to wait for the broker to accept clients. Default 60 s. */
  startTimeoutMs?: number;
}
export interface LocalKafka {
  readonly brokers: string[];
  readonly pid: number;
  stop(): Promise<void>;
  /** Stops the broker and starts it again on the same ports and data (an outage, for tests). */
  restart(): Promise<void>;
}
export declare class LocalKafkaError extends Error {
  readonly code: 'KAFKA_JARS_MISSING' | 'KAFKA_FORMAT_FAILED' | 'KAFKA_START_FAILED' | 'KAFKA_START_TIMEOUT';
  constructor(
    code: LocalKafkaError['code'],
    message: string,
    options?: {
      cause?: unknown;
    },
  );
}
/** A port that was free a moment ago; the broker binds it right after. */
export declare function freePort(): Promise<number>;
export declare function kafkaJarsPresent(): boolean;
export declare function startLocalKafka(options: LocalKafkaOptions): Promise<LocalKafka>;
//# sourceMappingURL=local-kafka.d.ts.map

/**
 * What the producer pipeline tells the rest of the ingestor, through one interface: a chunk of a
 * connection's frames was acknowledged by Kafka (every record of it is durable there), frames were
 * given up undecoded, the buffer filled or drained; and, before any of that, that a chunk was sealed. The pipeline knows nothing of metrics, the
 * latency histogram, the trade memory or a write-ahead log: each is an observer of its own, added
 * where the ingestor is built (`ProducerPipeline.observe`), told in the order added.
 */
import type { ChunkResult } from './worker-protocol.js';

/**
 * One chunk of frames, every record of it acknowledged by Kafka. `result.connection` and
 * `result.sequence` name it (sequences count from 0 per connection and run, acknowledged in order).
 */
export interface ChunkAcknowledged {
  /** The decode worker's report (counts, produced records, the trades it saw, its ack time). */
  result: ChunkResult;
  /** Each frame's receive time, epoch µs, in the order received. */
  receivedAtMicros: Float64Array;
  /** Bytes the pipeline held when the acknowledgement came back (this chunk's still among them). */
  bufferedBytes: number;
}

export interface PipelineObserver {
  /**
   * A connection's next chunk was sealed with `frames` frames, before it is sent: chunks of a
   * connection are sent, and numbered, in the order they are sealed (the write-ahead log's ledger).
   */
  sealed?(connection: number, frames: number): void;
  /** Kafka acknowledged a chunk. Called in chunk order per connection. */
  acknowledged?(chunk: ChunkAcknowledged): void;
  /** Frames that will never be decoded (their chunk failed every attempt). */
  undecoded?(connection: number, reason: 'worker_failed', frames: number): void;
  /** The bound on buffered bytes was reached (`full`), or the buffer drained below half of it. */
  pressure?(full: boolean, bufferedBytes: number): void;
}

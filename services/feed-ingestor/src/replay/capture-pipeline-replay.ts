/**
 * Pushes a capture file (codec format) into given topics through the same decode workers and
 * producer as live frames, at the recorded pace or as fast as possible: the bulk path of tests and
 * benchmarks (bench:sink), at the live pipeline's throughput. Frames keep their recorded receive
 * times, so it produces the same records a live run did, under a run identity of its own each time
 * (so two of them into one topic are two copies). The operator's `feed-ingestor replay` is
 * replay.ts: its own topics by default, identities derived from the source, a speed factor.
 */
import { readCapture } from '@feedpipe/codec';
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import { ProducerPipeline } from '../pipeline/producer-pipeline.js';

export interface ReplayOptions {
  file: string;
  brokers: string[];
  topics?: Partial<FeedTopics>;
  /** `recorded` waits out the recorded gaps between frames; `max` does not wait. Default max. */
  speed?: 'recorded' | 'max';
  workers?: number;
}

export interface ReplayResult {
  frames: number;
  packets: number;
  produced: number;
  malformed: number;
  unknown: number;
  seconds: number;
}

export async function replayCapture(options: ReplayOptions): Promise<ReplayResult> {
  const started = performance.now();
  const pipeline = new ProducerPipeline({
    brokers: options.brokers,
    topics: { ...DEFAULT_FEED_TOPICS, ...options.topics },
    workers: options.workers,
  });
  let firstRecorded: bigint | undefined;
  let frames = 0;
  try {
    for await (const record of readCapture(options.file)) {
      if (options.speed === 'recorded') {
        firstRecorded ??= record.receivedAtMicros;
        const dueMs = Number(record.receivedAtMicros - firstRecorded) / 1000;
        const waitMs = dueMs - (performance.now() - started);
        if (waitMs > 1) await new Promise((r) => setTimeout(r, waitMs));
      }
      // Everything is one "connection": one chunk in flight at a time keeps the recorded order.
      // push() always takes the frame; false means "at the bound", so wait for Kafka to catch up.
      if (!pipeline.push(0, record.payload, Number(record.receivedAtMicros))) await pipeline.drain();
      frames += 1;
    }
    await pipeline.drain();
  } finally {
    await pipeline.close();
  }
  return {
    frames,
    packets: pipeline.totals.packets,
    produced: pipeline.totals.produced,
    malformed: pipeline.totals.malformed,
    unknown: pipeline.totals.unknown,
    seconds: (performance.now() - started) / 1000,
  };
}

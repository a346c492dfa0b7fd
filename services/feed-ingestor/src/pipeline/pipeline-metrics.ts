/**
 * The producer pipeline's results in the ingestor's metrics: an observer (pipeline-observer.ts) that
 * counts each acknowledged chunk's packets, records and times, observes the receive-to-ack latency
 * (a sample of every 16th frame: the histogram is for dashboards, the recorder keeps every frame),
 * and says when the buffer fills and drains.
 */
import { type FeedTopics, TOPIC_KINDS } from '@feedpipe/contracts';
import { type IngestorMetrics, noDataYetOf, packetTypeLabel } from '../ingestor-metrics.js';
import type { ChunkAcknowledged, PipelineObserver } from './pipeline-observer.js';

/** Every how many frames of a chunk one latency sample goes into the histogram. */
const LATENCY_SAMPLE_STRIDE = 16;

export function pipelineMetrics(
  metrics: IngestorMetrics,
  topics: FeedTopics,
  log: (message: string) => void,
): PipelineObserver {
  return {
    acknowledged: (chunk) => countChunk(metrics, topics, chunk),
    undecoded: (_connection, reason, frames) => metrics.framesUndecoded.inc({ reason }, frames),
    pressure: (full, buffered) => {
      if (full) {
        metrics.bufferFull.inc();
        log(
          `BUFFER FULL: ${buffered} bytes not yet acknowledged by Kafka; pausing the feed sockets until it drains`,
        );
      } else {
        log(`buffer drained to ${buffered} bytes; resuming the feed sockets`);
      }
    },
  };
}

function countChunk(metrics: IngestorMetrics, topics: FeedTopics, chunk: ChunkAcknowledged): void {
  const { result } = chunk;
  if (result.repeats > 0) metrics.repeatedTrades.inc(result.repeats);
  if (result.unknownQuantities > 0) metrics.unknownQuantities.inc(result.unknownQuantities);
  for (const [code, count] of result.byCode) metrics.packets.inc({ type: packetTypeLabel(code) }, count);
  if (result.malformed > 0) {
    metrics.malformed.inc(result.malformed);
    // Each malformed packet stopped its frame: the frame is only partly decoded.
    metrics.framesUndecoded.inc({ reason: 'malformed' }, result.malformed);
  }
  if (result.unknown > 0) metrics.unknown.inc(result.unknown);
  const noDataYet = noDataYetOf(result.byCode, result.produced);
  if (noDataYet > 0) metrics.noDataYet.inc(noDataYet);
  TOPIC_KINDS.forEach((kind, i) => {
    const n = result.produced[i] ?? 0;
    if (n > 0) metrics.produced.inc({ topic: topics[kind] }, n);
  });
  metrics.decodeSeconds.observe(result.decodeMicros / 1e6);
  metrics.produceSeconds.observe(result.produceMicros / 1e6);
  if (result.produceRetries > 0) metrics.kafkaErrors.inc(result.produceRetries);
  if (result.producerResets > 0) metrics.producerResets.inc(result.producerResets);
  metrics.bufferedBytes.set(chunk.bufferedBytes);
  const received = chunk.receivedAtMicros;
  for (let i = 0; i < received.length; i += LATENCY_SAMPLE_STRIDE)
    metrics.ackLatencySeconds.observe((result.ackedAtMicros - (received[i] as number)) / 1e6);
}

/**
 * Decode worker (piscina): one task = one pack of frames from one connection. The pack is counted,
 * then laid out as Kafka record batches per topic and partition by ChunkEncoder (each row's JSON
 * written straight into its partition's batch, no object per packet), and produced with this
 * worker's own idempotent BatchProducer (@feedpipe/kafka-client), keyed by security id. The task
 * resolves only once Kafka acknowledged everything, so the main thread's "in flight" accounting is
 * exact; while Kafka is down the send is retried with backoff and the chunk stays here (the main
 * thread keeps buffering behind it, bounded, and pauses the sockets at the bound).
 */
import { workerData } from 'node:worker_threads';
import { TOPIC_KINDS } from '@feedpipe/contracts';
import { ProduceSet, type TopicRecords } from '@feedpipe/kafka-client';
import { nowMicros } from '../epoch-micros.js';
import { ChunkEncoder } from './chunk-encoder.js';
import { ChunkSender } from './chunk-sender.js';
import type { FrameChunkMessage } from './frame-chunk.js';
import type { ChunkResult, DecodeWorkerData } from './worker-protocol.js';

const config = workerData as DecodeWorkerData;
/** Partition count of each topic as the producer last found it, to lay out ahead of the send. */
const partitionCounts = new Map<string, number>();
const sender = new ChunkSender(config);

/** The chunk's records per topic, laid out for whatever partition count the producer finds. */
function topicRecordsOf(encoder: ChunkEncoder, rowsByKind: readonly number[]): TopicRecords[] {
  const topics: TopicRecords[] = [];
  TOPIC_KINDS.forEach((kind, index) => {
    if (rowsByKind[index] === 0) return;
    const topic = config.topics[kind];
    // Laid out now when the partition count is known (so decodeMicros covers the serialisation
    // too); the producer's call below then finds the layout ready. Otherwise laid out on send.
    const known = partitionCounts.get(topic);
    if (known !== undefined) encoder.recordSets(index, known);
    topics.push({
      topic,
      layout: (partitionCount) => {
        partitionCounts.set(topic, partitionCount);
        return encoder.recordSets(index, partitionCount);
      },
    });
  });
  return topics;
}

export default async function processChunk(task: FrameChunkMessage): Promise<ChunkResult> {
  const decodeStarted = performance.now();
  const encoder = new ChunkEncoder(
    task.pack,
    { run: config.sourceRun, connection: task.connection, chunk: task.sequence },
    task.guard,
    task.bases,
  );
  const { counters, rowsByKind, repeats, traded, movedBases, unknownQuantities } = encoder.count();
  const topics = topicRecordsOf(encoder, rowsByKind);
  const decoded = {
    connection: task.connection,
    sequence: task.sequence,
    frames: task.frameCount,
    packets: counters.packets,
    malformed: counters.malformed,
    unknown: counters.unknown,
    byCode: Object.entries(counters.byCode).map(([code, count]): [number, number] => [Number(code), count]),
    produced: rowsByKind,
    repeats,
    traded,
    movedBases,
    unknownQuantities,
    decodeMicros: Math.round((performance.now() - decodeStarted) * 1000),
  };
  const started = performance.now();
  const { retries, resets } =
    topics.length === 0 ? { retries: 0, resets: 0 } : await sender.deliver(new ProduceSet(topics));
  // The producer is done with the batches (acknowledged): their buffers go back to the pool.
  encoder.release();
  return {
    ...decoded,
    ackedAtMicros: nowMicros(),
    produceMicros: Math.round((performance.now() - started) * 1000),
    produceRetries: retries,
    producerResets: resets,
  };
}

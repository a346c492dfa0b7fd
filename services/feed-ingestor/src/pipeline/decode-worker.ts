/**
 * Decode worker (piscina): one task = one pack of frames from one connection. The pack is counted,
 * then laid out as Kafka record batches per topic and partition by ChunkEncoder (each row's JSON
 * written straight into its partition's batch, no object per packet), and produced with this
 * worker's own idempotent producer, keyed by security id. The task resolves only once Kafka
 * acknowledged everything, so the main thread's "in flight" accounting is exact; while Kafka is down
 * the send is retried with backoff and the chunk stays here (the main thread keeps buffering behind
 * it, bounded).
 */
import { workerData } from 'node:worker_threads';
import { Kafka, logLevel, type Producer, type TopicMessages } from 'kafkajs';
import { Backoff } from '../backoff.js';
import { TOPIC_KINDS } from '../topics.js';
import { ChunkEncoder } from './chunk-encoder.js';
import type { FrameChunkMessage } from './frame-chunk.js';
import type { ChunkResult, DecodeWorkerData } from './worker-protocol.js';

const config = workerData as DecodeWorkerData;
/** Partition count of each topic as the Kafka client last reported it. */
const partitionCounts = new Map<string, number>();
let producer: Producer | undefined;
let connecting: Promise<Producer> | undefined;

/** Failed sends in a row after which the producer is replaced (each waits up to ~2 s plus kafkajs's own retries). */
const RECREATE_AFTER_FAILURES = 20;

/** The producer-sequence error in a kafkajs error chain, if any. */
function sequenceErrorOf(
  error: unknown,
): 'DUPLICATE_SEQUENCE_NUMBER' | 'OUT_OF_ORDER_SEQUENCE_NUMBER' | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const type = (e as { type?: unknown }).type;
    if (type === 'DUPLICATE_SEQUENCE_NUMBER' || type === 'OUT_OF_ORDER_SEQUENCE_NUMBER') return type;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

async function getProducer(): Promise<Producer> {
  if (producer) return producer;
  connecting ??= (async () => {
    const kafka = new Kafka({
      clientId: config.clientId,
      brokers: config.brokers,
      logLevel: logLevel.NOTHING,
      requestTimeout: config.requestTimeoutMs,
      retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
    });
    // Idempotent: the broker drops duplicates of kafkajs's own retries, and with one request in
    // flight per broker the order of records per partition is the order of sends.
    const p = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: true,
    });
    await p.connect();
    producer = p;
    return p;
  })();
  try {
    return await connecting;
  } finally {
    connecting = undefined;
  }
}

export default async function processChunk(task: FrameChunkMessage): Promise<ChunkResult> {
  const decodeStarted = performance.now();
  const encoder = new ChunkEncoder(task.pack);
  const { counters, rowsByKind } = encoder.count();
  const topicMessages: TopicMessages[] = [];
  TOPIC_KINDS.forEach((kind, index) => {
    if (rowsByKind[index] === 0) return;
    const topic = config.topics[kind];
    // Laid out now when the partition count is known (so decodeMicros covers the serialisation
    // too); the client's call below then finds the layout ready. Otherwise laid out on send.
    const known = partitionCounts.get(topic);
    if (known !== undefined) encoder.recordSets(index, known);
    topicMessages.push({
      topic,
      messages: [],
      encodePartitions: (partitionCount) => {
        partitionCounts.set(topic, partitionCount);
        return encoder.recordSets(index, partitionCount);
      },
    });
  });
  const decoded = {
    connection: task.connection,
    sequence: task.sequence,
    frames: task.frameCount,
    packets: counters.packets,
    malformed: counters.malformed,
    unknown: counters.unknown,
    byCode: Object.entries(counters.byCode).map(([code, count]): [number, number] => [Number(code), count]),
    produced: rowsByKind,
    decodeMicros: Math.round((performance.now() - decodeStarted) * 1000),
  };
  const started = performance.now();
  const backoff = new Backoff({ initialMs: 200, maxMs: 2_000 });
  let produceRetries = 0;
  while (topicMessages.length > 0) {
    try {
      const p = await getProducer();
      await p.sendBatch({ topicMessages, acks: -1, timeout: config.requestTimeoutMs });
      break;
    } catch (error) {
      // Kafka slow or down: keep the chunk and send it again with the SAME producer. Its producer id
      // and per-partition sequence numbers do not advance on a failed send, so the broker drops
      // whatever part of the earlier attempt it had already appended (idempotence survives a broker
      // restart: producer state is rebuilt from the log). A new producer would get a new id and
      // duplicate that part, so it is made only when the same one cannot go on: the broker answers
      // with a sequence error (kafkajs has no recovery for those and would fail forever), or
      // sending has failed for long. Liveness wins there; the records may then be duplicated.
      produceRetries += 1;
      const sequence = sequenceErrorOf(error);
      if (producer && (sequence !== undefined || produceRetries % RECREATE_AFTER_FAILURES === 0)) {
        const stale = producer;
        producer = undefined;
        await stale.disconnect().catch(() => undefined);
      }
      // The broker already holds this exact batch (an append whose answer was lost to a restart):
      // it is delivered; sending it again from a new producer would duplicate it.
      if (sequence === 'DUPLICATE_SEQUENCE_NUMBER') break;
      await new Promise((r) => setTimeout(r, backoff.next()));
    }
  }
  encoder.release();
  return {
    ...decoded,
    ackedAtMicros: nowMicros(),
    produceMicros: Math.round((performance.now() - started) * 1000),
    produceRetries,
  };
}

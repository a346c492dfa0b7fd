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
import { TOPIC_KINDS } from '@feedpipe/contracts';
import { retry } from '@feedpipe/service-kit';
import { Kafka, logLevel, type Producer, type TopicMessages } from 'kafkajs';
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

/**
 * One send at a time on this worker's producer. kafkajs hands out a partition's sequence numbers
 * per request and, when any partition of a request fails, rolls ALL of them back, although the
 * broker appended the partitions that succeeded. A retry of that same request carries the same
 * sequences and the broker recognises the appended part as a duplicate; but a second send on the
 * same producer in between (another connection's chunk) would take the rolled-back numbers, the
 * broker then answers OUT_OF_ORDER_SEQUENCE_NUMBER, and the only way on is a new producer, which
 * re-sent the first chunk as a new batch: the duplicate snapshots of issue #23. Serialising the
 * sends keeps every retry the same batch; decoding and laying out the next chunks still overlap.
 */
let sendQueue: Promise<unknown> = Promise.resolve();
function exclusiveSend<T>(run: () => Promise<T>): Promise<T> {
  const turn = sendQueue.then(run, run);
  sendQueue = turn.catch(() => undefined);
  return turn;
}

/**
 * Sends until Kafka acknowledged every partition. While Kafka is slow or down the chunk stays here
 * and goes again with the SAME producer: its id and sequences do not advance on a failed send, so
 * the broker drops whatever part of an earlier attempt it had already appended (idempotence survives
 * a broker restart: producer state is rebuilt from the log). A new producer (new id) is made only
 * when the same one cannot go on: the broker answers with a sequence error (kafkajs cannot recover
 * from those) or sending has failed for long. That reset is the one remaining window for a
 * duplicate in Kafka (whatever part of the chunk the broker had appended is appended again); it is
 * counted, and the sink drops such records by their source identity (docs/architecture.md).
 */
async function send(topicMessages: TopicMessages[]): Promise<{ retries: number; resets: number }> {
  let retries = 0;
  let resets = 0;
  if (topicMessages.length === 0) return { retries, resets };
  await retry(
    async () => {
      try {
        const p = await getProducer();
        await p.sendBatch({ topicMessages, acks: -1, timeout: config.requestTimeoutMs });
      } catch (error) {
        // The broker already holds this exact batch (an append whose answer was lost to a restart):
        // it is delivered; sending it again from a new producer would duplicate it.
        if (sequenceErrorOf(error) === 'DUPLICATE_SEQUENCE_NUMBER') {
          retries += 1;
          return;
        }
        throw error;
      }
    },
    {
      // Unbounded on purpose: the chunk stays here until Kafka takes it, and the main thread's
      // bounded buffer pushes back on the sockets meanwhile (behaviour during a Kafka outage).
      attempts: Number.POSITIVE_INFINITY,
      initialMs: 200,
      maxMs: 2_000,
      onRetry: async (error) => {
        retries += 1;
        const sequence = sequenceErrorOf(error);
        if (producer && (sequence !== undefined || retries % RECREATE_AFTER_FAILURES === 0)) {
          const stale = producer;
          producer = undefined;
          resets += 1;
          await stale.disconnect().catch(() => undefined);
        }
      },
    },
  );
  return { retries, resets };
}

export default async function processChunk(task: FrameChunkMessage): Promise<ChunkResult> {
  const decodeStarted = performance.now();
  const encoder = new ChunkEncoder(task.pack, {
    run: config.sourceRun,
    connection: task.connection,
    chunk: task.sequence,
  });
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
  const { retries: produceRetries, resets: producerResets } = await exclusiveSend(() => send(topicMessages));
  encoder.release();
  return {
    ...decoded,
    ackedAtMicros: nowMicros(),
    produceMicros: Math.round((performance.now() - started) * 1000),
    produceRetries,
    producerResets,
  };
}

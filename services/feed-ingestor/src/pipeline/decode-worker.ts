/**
 * Decode worker (piscina): one task = one pack of frames from one connection. Decodes the pack with
 * the codec's columnar decoder into a preallocated batch (no allocation per packet), serialises each
 * row to the stable JSON shape (the first allocation per packet), and produces the records to Kafka
 * with this worker's own idempotent producer, keyed by security id. The task resolves only once Kafka
 * acknowledged everything, so the main thread's "in flight" accounting is exact; while Kafka is down
 * the send is retried with backoff and the chunk stays here (the main thread keeps buffering behind
 * it, bounded).
 */
import { workerData } from 'node:worker_threads';
import {
  ColumnarBatch,
  type DecodeCounters,
  decodeFramesToColumns,
  MsgCode,
  newDecodeCounters,
  newDecodePosition,
  RECORD_TYPE_BY_CODE,
} from '@feedpipe/codec';
import { type ICustomPartitioner, Kafka, logLevel, type Message, Partitioners, type Producer } from 'kafkajs';
import { Backoff } from '../backoff.js';
import { TOPIC_KINDS, topicKindOf } from '../topics.js';
import type { FrameChunkMessage } from './frame-chunk.js';
import type { ChunkResult, DecodeWorkerData } from './worker-protocol.js';

const config = workerData as DecodeWorkerData;
/** Rows decoded per pass; a pack larger than this is decoded in several passes. */
const BATCH_ROWS = 65_536;
const batch = new ColumnarBatch(BATCH_ROWS);
/** Reused for every row: jsonAt reads it synchronously, so one object serves them all. */
const extra = { receivedAt: 0 };
let producer: Producer | undefined;
let connecting: Promise<Producer> | undefined;

// Keys repeat (one per instrument): encode each once. Bounded so a hostile id stream cannot grow it.
const MAX_CACHED_KEYS = 1_000_000;
const keyCache = new Map<number, Buffer>();
function keyOf(securityId: number): Buffer {
  let key = keyCache.get(securityId);
  if (key === undefined) {
    if (keyCache.size >= MAX_CACHED_KEYS) keyCache.clear();
    key = Buffer.from(String(securityId));
    keyCache.set(securityId, key);
  }
  return key;
}

/**
 * kafkajs's default (Java-compatible murmur2) partitioner, remembered per key buffer: the keys are
 * the cached buffers above, so each instrument is hashed once per topic and partition count, and the
 * partition is exactly the one any Java-compatible producer would pick.
 */
const cachingPartitioner: ICustomPartitioner = () => {
  const murmur = Partitioners.DefaultPartitioner();
  const byTopic = new Map<string, { partitions: number; byKey: Map<Buffer, number> }>();
  return (args) => {
    let topic = byTopic.get(args.topic);
    if (!topic || topic.partitions !== args.partitionMetadata.length) {
      topic = { partitions: args.partitionMetadata.length, byKey: new Map() };
      byTopic.set(args.topic, topic);
    }
    const key = args.message.key;
    if (!(key instanceof Buffer)) return murmur(args);
    let partition = topic.byKey.get(key);
    if (partition === undefined) {
      partition = murmur(args);
      topic.byKey.set(key, partition);
    }
    return partition;
  };
};

/** Topic kind (index into TOPIC_KINDS) per message code, from the one mapping in topics.ts. */
const KIND_BY_CODE = new Uint8Array(256).fill(TOPIC_KINDS.indexOf('status'));
for (const [code, type] of Object.entries(RECORD_TYPE_BY_CODE)) {
  KIND_BY_CODE[Number(code)] = TOPIC_KINDS.indexOf(topicKindOf(type));
}

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
      createPartitioner: cachingPartitioner,
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
 * Turns the string values of one topic's messages into views of a single buffer: one encode of the
 * concatenation instead of one Buffer.from per record inside kafkajs (a measurable share of a
 * worker's time at 100k records/s). The record JSON is ASCII (fixed keys, numbers), so character
 * offsets are byte offsets and latin1 encodes it byte for byte.
 */
function encodeValues(list: Message[]): void {
  if (list.length === 0) return;
  const values = list.map((m) => m.value as string);
  const bytes = Buffer.from(values.join(''), 'latin1');
  let at = 0;
  for (let i = 0; i < list.length; i++) {
    const length = (values[i] as string).length;
    (list[i] as Message).value = bytes.subarray(at, at + length);
    at += length;
  }
}

function decodeChunk(
  task: FrameChunkMessage,
  messages: Message[][],
): Omit<ChunkResult, 'ackedAtMicros' | 'produceMicros' | 'produceRetries'> {
  const started = performance.now();
  const counters: DecodeCounters = newDecodeCounters();
  const position = newDecodePosition();
  while (!position.done) {
    batch.clear();
    decodeFramesToColumns(task.pack, batch, counters, position);
    for (let row = 0; row < batch.length; row++) {
      const code = batch.codeAt(row);
      extra.receivedAt = batch.receivedAtMicrosAt(row);
      (messages[KIND_BY_CODE[code] as number] as Message[]).push({
        key: keyOf(code === MsgCode.Error ? 0 : batch.securityIdAt(row)),
        value: batch.jsonAt(row, extra),
      });
    }
  }
  for (const list of messages) encodeValues(list);
  return {
    connection: task.connection,
    sequence: task.sequence,
    frames: task.frameCount,
    packets: counters.packets,
    malformed: counters.malformed,
    unknown: counters.unknown,
    byCode: Object.entries(counters.byCode).map(([code, count]) => [Number(code), count]),
    produced: [
      messages[0]?.length ?? 0,
      messages[1]?.length ?? 0,
      messages[2]?.length ?? 0,
      messages[3]?.length ?? 0,
    ],
    decodeMicros: Math.round((performance.now() - started) * 1000),
  };
}

export default async function processChunk(task: FrameChunkMessage): Promise<ChunkResult> {
  const messages: Message[][] = [[], [], [], []];
  const decoded = decodeChunk(task, messages);
  const topicMessages = TOPIC_KINDS.map((kind, i) => ({
    topic: config.topics[kind],
    messages: messages[i] as Message[],
  })).filter((t) => t.messages.length > 0);
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
  return {
    ...decoded,
    ackedAtMicros: nowMicros(),
    produceMicros: Math.round((performance.now() - started) * 1000),
    produceRetries,
  };
}

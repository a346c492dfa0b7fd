/**
 * npm run bench:kafka-client -- [--records 1000000] [--partitions 6] [--chunk 20000] [--rounds 2]
 *                                [--skip-plain] [--consume-only] [--no-crc-path] [--adapter-first]
 *
 * `--records 5000000 --consume-only`: the sink's drain figure (5 M records produced once with the
 * adapter, then only the consumers are timed, in rounds alternating which goes first).
 *
 * The Kafka client, measured (issue #17 item 4): 1 M keyed JSON trade records (~150 bytes each, an
 * `fp-src` header like the ingestor's), laid out as record batches per partition and produced
 * idempotently with acks=all to a 6-partition topic, one chunk at a time with the next chunk laid
 * out while the current one is in flight (what a decode worker does), through
 *   (a) the old path: kafkajs 2.2.4 with the patched `encodePartitions` (batches laid out by
 *       kafka-client's RecordBatchBuilder, handed over in kafkajs's shape);
 *   (b) @feedpipe/kafka-client's BatchProducer (our Produce request over @platformatic/kafka);
 *   (c) for reference, @platformatic/kafka's own Producer.send with one object per record;
 * then consumed back through (a) kafkajs eachBatch and (b) the adapter's BatchConsumer (our Fetch
 * and in-place record decoding; (b') the same without the CRC-32C check, unless --no-crc-path),
 * all reading the same topic, touching every key, value and header, same fetch sizes (4 MiB per
 * request, 1 MiB per partition). Same local broker, fresh groups per path. Last stdout line: JSON.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BatchConsumer,
  BatchProducer,
  KafkaAdmin,
  ProduceSet,
  partitionOf,
  RecordBatchBuilder,
  type RecordValueWriter,
} from '@feedpipe/kafka-client';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { BufferPool } from '@feedpipe/service-kit';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import { Producer as PlatformaticProducer } from '@platformatic/kafka';
import { type EncodedRecordSet, Kafka, logLevel, type TopicMessages } from 'kafkajs';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    partitions: { type: 'string', default: '6' },
    chunk: { type: 'string', default: '20000' },
    instruments: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '2' },
    'skip-plain': { type: 'boolean', default: false },
    'consume-only': { type: 'boolean', default: false },
    'no-crc-path': { type: 'boolean', default: false },
    /** Round 0 starts with the adapter (for runs that alternate the order across invocations too). */
    'adapter-first': { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const PARTITIONS = Number(values.partitions);
const CHUNK = Number(values.chunk);
const INSTRUMENTS = Number(values.instruments);
const ROUNDS = Math.max(1, Number(values.rounds));
const SOURCE_HEADER = 'fp-src';
const SOURCE_BYTES = 14;

function log(message: string): void {
  process.stderr.write(`bench:kafka-client: ${message}\n`);
}

/** Instrument keys and their partitions (the ingestor memoises these the same way). */
const keys = Array.from({ length: INSTRUMENTS }, (_, i) => Buffer.from(String(1000 + i * 7)));
const partitionOfKey = keys.map((k) => partitionOf(k, PARTITIONS));

/** A realistic trade value (~150 bytes), written straight into the batch like the ingestor's row JSON. */
class TradeValue implements RecordValueWriter {
  readonly maxBytes = 256;
  row = 0;
  writeValue(out: Uint8Array, at: number): number {
    const i = this.row;
    const text = `{"type":"trade","exchangeSegment":"NSE_EQ","securityId":${1000 + (i % INSTRUMENTS) * 7},"ltp":${(1500 + (i % 997) * 0.05).toFixed(2)},"ltq":${1 + (i % 50)},"ltt":${1767225600 + (i >> 4)},"volume":${100000 + i},"receivedAt":${1767225600000000 + i * 13}}`;
    return at + Buffer.prototype.latin1Write.call(out as Buffer, text, at);
  }
}
const tradeValue = new TradeValue();
const source = new Uint8Array(SOURCE_BYTES);
const sourceView = new DataView(source.buffer);

function setSource(chunk: number, row: number): void {
  sourceView.setUint32(0, 1);
  sourceView.setUint16(4, 0);
  sourceView.setUint32(6, chunk);
  sourceView.setUint32(10, row);
}

/** Lays out one chunk per partition with `make` and `append` (both paths share the values and headers). */
function layoutChunk<B>(chunk: number, make: () => B, append: (b: B, key: Buffer) => void): Map<number, B> {
  const out = new Map<number, B>();
  const start = chunk * CHUNK;
  const end = Math.min(RECORDS, start + CHUNK);
  for (let i = start; i < end; i++) {
    const k = i % INSTRUMENTS;
    const p = partitionOfKey[k] as number;
    let b = out.get(p);
    if (!b) {
      b = make();
      out.set(p, b);
    }
    tradeValue.row = i;
    setSource(chunk, i - start);
    append(b, keys[k] as Buffer);
  }
  return out;
}

/** Reused batch buffers for path (a), as the ingestor's workers pooled them on that path. */
const kafkajsPool = new BufferPool(64, 64 * 1024 * 1024);

/** A batch laid out by RecordBatchBuilder in the shape the kafkajs patch takes (until kafkajs goes). */
class KafkajsRecordSet implements EncodedRecordSet {
  readonly builder = new RecordBatchBuilder({
    headers: [{ name: SOURCE_HEADER, valueBytes: SOURCE_BYTES }],
    expectedBytes,
    buffers: kafkajsPool,
  });
  get length(): number {
    return this.builder.count;
  }
  encodeBatch(fields: { producerId: unknown; producerEpoch: number; firstSequence: number }): Buffer {
    // kafkajs hands the producer id over as decimal text or a Long ({ value }).
    const id = fields.producerId as { value?: unknown } | string | number | bigint;
    const producerId = BigInt(typeof id === 'object' ? String(id.value ?? id) : id);
    const batch = this.builder.encode({
      producerId,
      producerEpoch: fields.producerEpoch,
      baseSequence: fields.firstSequence,
    });
    return Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  }
}

const chunks = Math.ceil(RECORDS / CHUNK);
const expectedBytes = Math.ceil((CHUNK * 230) / PARTITIONS);

async function produceKafkajs(brokers: string[], topic: string): Promise<number> {
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const started = performance.now();
  const sets = (c: number) =>
    layoutChunk(
      c,
      () => new KafkajsRecordSet(),
      (b, key) => b.builder.append(key, tradeValue, source),
    );
  let next = sets(0);
  for (let c = 0; c < chunks; c++) {
    const current = next;
    const topicMessages: TopicMessages[] = [
      { topic, messages: [], encodePartitions: () => Object.fromEntries(current) },
    ];
    const sending = producer.sendBatch({ topicMessages, acks: -1 });
    if (c + 1 < chunks) next = sets(c + 1);
    await sending;
    for (const b of current.values()) b.builder.release();
  }
  const seconds = (performance.now() - started) / 1000;
  await producer.disconnect();
  return RECORDS / seconds;
}

async function produceAdapter(brokers: string[], topic: string): Promise<number> {
  const producer = new BatchProducer({ brokers, clientId: 'bench-adapter' });
  await producer.connect();
  const count = await producer.partitionCount(topic);
  const started = performance.now();
  const sets = (c: number) =>
    layoutChunk(
      c,
      () =>
        new RecordBatchBuilder({
          headers: [{ name: SOURCE_HEADER, valueBytes: SOURCE_BYTES }],
          expectedBytes,
        }),
      (b, key) => b.append(key, tradeValue, source),
    );
  let next = sets(0);
  for (let c = 0; c < chunks; c++) {
    const current = next;
    const sending = producer.send(new ProduceSet([{ topic, layout: () => current }]));
    if (c + 1 < chunks) next = sets(c + 1);
    await sending;
  }
  const seconds = (performance.now() - started) / 1000;
  await producer.close();
  if (count !== PARTITIONS) throw new Error(`topic has ${count} partitions`);
  return RECORDS / seconds;
}

/** @platformatic/kafka's own producer: one message object per record (its plain, documented path). */
async function producePlain(brokers: string[], topic: string): Promise<number> {
  const producer = new PlatformaticProducer({
    clientId: 'bench-plain',
    bootstrapBrokers: brokers,
    idempotent: true,
    partitioner: (_m, key) => (key ? partitionOf(key, PARTITIONS) : 0),
  });
  const started = performance.now();
  const valueBuffer = Buffer.allocUnsafe(256);
  for (let c = 0; c < chunks; c++) {
    const messages = [];
    const start = c * CHUNK;
    const end = Math.min(RECORDS, start + CHUNK);
    for (let i = start; i < end; i++) {
      tradeValue.row = i;
      setSource(c, i - start);
      const n = tradeValue.writeValue(valueBuffer, 0);
      messages.push({
        topic,
        key: keys[i % INSTRUMENTS] as Buffer,
        value: Buffer.from(valueBuffer.subarray(0, n)),
        headers: new Map([[Buffer.from(SOURCE_HEADER), Buffer.from(source)]]),
      });
    }
    await producer.send({ messages });
  }
  const seconds = (performance.now() - started) / 1000;
  await producer.close();
  return RECORDS / seconds;
}

async function consumeKafkajs(brokers: string[], topic: string): Promise<number> {
  const kafka = new Kafka({ clientId: 'bench-kafkajs-consumer', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({
    groupId: uniqueName('bench-kafkajs'),
    maxBytesPerPartition: 1024 * 1024,
    maxBytes: 4 * 1024 * 1024,
    maxWaitTimeInMs: 500,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  let bytes = 0;
  let started = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kafkajs consumed ${seen} of ${RECORDS}`)), 600_000);
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          if (started === 0) started = performance.now();
          for (const m of batch.messages) {
            bytes +=
              (m.key?.length ?? 0) +
              (m.value?.length ?? 0) +
              ((m.headers?.[SOURCE_HEADER] as Buffer | undefined)?.length ?? 0);
            seen += 1;
          }
          if (seen >= RECORDS) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  const seconds = (performance.now() - started) / 1000;
  await consumer.disconnect();
  if (bytes === 0) throw new Error('nothing read');
  return RECORDS / seconds;
}

async function consumeAdapter(brokers: string[], topic: string, checkCrcs: boolean): Promise<number> {
  let seen = 0;
  let bytes = 0;
  let started = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const consumer = new BatchConsumer({
    brokers,
    clientId: 'bench-adapter-consumer',
    groupId: uniqueName('bench-adapter'),
    topics: [topic],
    checkCrcs,
    maxBytes: 4 * 1024 * 1024,
    maxBytesPerPartition: 1024 * 1024,
    maxWaitMs: 500,
    eachBatch: (batch) => {
      if (started === 0) started = performance.now();
      for (let i = 0; i < batch.count; i++) {
        bytes +=
          (batch.key(i)?.length ?? 0) +
          (batch.value(i)?.length ?? 0) +
          (batch.header(i, SOURCE_HEADER)?.length ?? 0);
      }
      seen += batch.count;
      if (seen >= RECORDS) done();
    },
  });
  await consumer.start();
  const timer = setTimeout(done, 600_000);
  await finished;
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  await consumer.stop();
  if (seen < RECORDS) throw new Error(`adapter consumed ${seen} of ${RECORDS}`);
  if (bytes === 0) throw new Error('nothing read');
  return RECORDS / seconds;
}

/** Fills `topic` with the adapter's producer (the consume-only mode's one topic). */
async function fill(brokers: string[], topic: string): Promise<void> {
  log(`producing ${RECORDS} records to ${topic}`);
  const rate = await produceAdapter(brokers, topic);
  log(`produced at ${Math.round(rate)}/s`);
}

async function main(): Promise<void> {
  const kafka = await startLocalKafka({
    dataDir: join(tempDir('bench-kafka-client'), 'kafka'),
    heap: '768m',
  });
  const admin = new KafkaAdmin({ brokers: kafka.brokers });
  const consumeOnly = values['consume-only'];
  const result: Record<string, unknown> = {
    bench: 'kafka-client',
    node: process.version,
    records: RECORDS,
    partitions: PARTITIONS,
    chunk: CHUNK,
    mode: consumeOnly ? 'consume-only' : 'produce-and-consume',
  };
  const samples: Record<string, number[]> = {
    produce_kafkajs: [],
    produce_adapter: [],
    produce_platformatic_plain: [],
    consume_kafkajs: [],
    consume_adapter: [],
    consume_adapter_nocrc: [],
  };
  const push = (name: string, value: number) => samples[name]?.push(Math.round(value));
  const countOf = async (topic: string) =>
    (await admin.topicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  try {
    let shared: string | undefined;
    if (consumeOnly) {
      shared = uniqueName('bench-drain');
      await admin.ensureTopics([shared], { partitions: PARTITIONS });
      await fill(kafka.brokers, shared);
    }
    // Rounds alternate which path goes first (a warmer JIT and broker favour the second); the
    // figures are the best round per path, all rounds listed beside.
    const flip = values['adapter-first'] ? 1 : 0;
    for (let round = 0; round < ROUNDS; round++) {
      const inOrder = (round + flip) % 2 === 0;
      let topic = shared;
      if (!topic) {
        const topicA = uniqueName('bench-kafkajs');
        const topicB = uniqueName('bench-adapter');
        await admin.ensureTopics([topicA, topicB], { partitions: PARTITIONS });
        const paths = [
          async () => {
            log(`round ${round}: produce (a) kafkajs (patched)`);
            push('produce_kafkajs', await produceKafkajs(kafka.brokers, topicA));
          },
          async () => {
            log(`round ${round}: produce (b) adapter`);
            push('produce_adapter', await produceAdapter(kafka.brokers, topicB));
          },
        ];
        for (const path of inOrder ? paths : paths.reverse()) await path();
        const inA = await countOf(topicA);
        if (inA !== RECORDS) throw new Error(`${topicA} holds ${inA} records, not ${RECORDS}`);
        topic = topicB;
      }
      const inTopic = await countOf(topic);
      if (inTopic !== RECORDS) throw new Error(`${topic} holds ${inTopic} records, not ${RECORDS}`);
      const source = topic;
      const reads = [
        async () => {
          log(`round ${round}: consume (a) kafkajs eachBatch`);
          push('consume_kafkajs', await consumeKafkajs(kafka.brokers, source));
        },
        async () => {
          log(`round ${round}: consume (b) adapter BatchConsumer`);
          push('consume_adapter', await consumeAdapter(kafka.brokers, source, true));
        },
      ];
      if (!values['no-crc-path']) {
        reads.push(async () => {
          log(`round ${round}: consume (b') adapter BatchConsumer, no CRC check`);
          push('consume_adapter_nocrc', await consumeAdapter(kafka.brokers, source, false));
        });
      }
      for (const read of inOrder ? reads : reads.reverse()) await read();
      log(
        `round ${round}: ${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.at(-1)])))}`,
      );
    }
    if (!values['skip-plain'] && !consumeOnly) {
      const topicC = uniqueName('bench-plain');
      await admin.ensureTopics([topicC], { partitions: PARTITIONS });
      log('produce (c) platformatic Producer.send, an object per record');
      push('produce_platformatic_plain', await producePlain(kafka.brokers, topicC));
    }
    for (const [name, list] of Object.entries(samples)) {
      if (list.length === 0) continue;
      result[`${name}_per_s`] = Math.max(...list);
      result[`${name}_rounds`] = list;
    }
  } finally {
    await admin.close();
    await kafka.stop();
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();

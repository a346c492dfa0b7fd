/**
 * npm run bench:kafka-client -- [--records 1000000] [--partitions 6] [--chunk 20000] [--rounds 2]
 *                                [--skip-json] [--consume-only] [--no-crc-path] [--ours-first]
 *
 * `--records 5000000 --consume-only`: the sink's drain figure (5 M records produced once with
 * BatchProducer, then only the readers are timed, in rounds alternating which goes first).
 *
 * Our Kafka clients against @platformatic/kafka's own (the library they are built on, used the
 * plain documented way): 1 M keyed JSON trade records (~150 bytes each, an `fp-src` header like
 * the ingestor's), produced idempotently with acks=all to a 6-partition topic, one chunk at a time
 * with the next chunk prepared while the current one is in flight (what a decode worker does),
 * through
 *   (a) @platformatic/kafka's Producer.send, one message object per record (the baseline);
 *   (b) @feedpipe/kafka-client's BatchProducer (record batches laid out by the caller, our Produce request);
 *   (c) @feedpipe/kafka-client's JsonProducer (keyed JSON values serialised per record, on (a));
 * then read back through
 *   (a) @platformatic/kafka's Consumer stream, one message object per record (the baseline);
 *   (b) BatchConsumer (our Fetch and in-place record decoding; (b') without the CRC-32C check,
 *       unless --no-crc-path);
 *   (c) TopicTail from the earliest offsets (the same fetch path without a group),
 * all reading the same topic, touching every key, value and header, same fetch sizes (4 MiB per
 * request, 1 MiB per partition). Same local broker, fresh groups per path. Last stdout line: JSON.
 *
 * (Path (a) used to be the project's former, patched client; README's and
 * packages/kafka-client/README.md's tables keep those figures as measured history.)
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BatchConsumer,
  BatchProducer,
  JsonProducer,
  KafkaAdmin,
  ProduceSet,
  partitionOf,
  RecordBatchBuilder,
  type RecordValueWriter,
  TopicTail,
} from '@feedpipe/kafka-client';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import { Consumer, MessagesStreamModes, Producer as PlatformaticProducer } from '@platformatic/kafka';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    partitions: { type: 'string', default: '6' },
    chunk: { type: 'string', default: '20000' },
    instruments: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '2' },
    'skip-json': { type: 'boolean', default: false },
    'consume-only': { type: 'boolean', default: false },
    'no-crc-path': { type: 'boolean', default: false },
    /** Round 0 starts with our clients (for runs that alternate the order across invocations too). */
    'ours-first': { type: 'boolean', default: false },
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

/** A realistic trade (~150 bytes as JSON). */
function tradeOf(i: number) {
  return {
    type: 'trade',
    exchangeSegment: 'NSE_EQ',
    securityId: 1000 + (i % INSTRUMENTS) * 7,
    ltp: Number((1500 + (i % 997) * 0.05).toFixed(2)),
    ltq: 1 + (i % 50),
    ltt: 1767225600 + (i >> 4),
    volume: 100000 + i,
    receivedAt: 1767225600000000 + i * 13,
  };
}

/** The trade value written straight into the batch, as the ingestor writes its row JSON. */
class TradeValue implements RecordValueWriter {
  readonly maxBytes = 256;
  row = 0;
  writeValue(out: Uint8Array, at: number): number {
    return at + Buffer.prototype.latin1Write.call(out as Buffer, JSON.stringify(tradeOf(this.row)), at);
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

const chunks = Math.ceil(RECORDS / CHUNK);
const expectedBytes = Math.ceil((CHUNK * 230) / PARTITIONS);

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

/** (c) JsonProducer: one keyed object per record, serialised by the producer, on (a). */
async function produceJson(brokers: string[], topic: string): Promise<number> {
  const producer = new JsonProducer({ brokers, clientId: 'bench-json' });
  const started = performance.now();
  for (let c = 0; c < chunks; c++) {
    const records = [];
    const start = c * CHUNK;
    const end = Math.min(RECORDS, start + CHUNK);
    for (let i = start; i < end; i++) {
      setSource(c, i - start);
      records.push({
        key: (keys[i % INSTRUMENTS] as Buffer).toString(),
        value: tradeOf(i),
        headers: { [SOURCE_HEADER]: Buffer.from(source) },
      });
    }
    await producer.send(topic, records);
  }
  const seconds = (performance.now() - started) / 1000;
  await producer.close();
  return RECORDS / seconds;
}

/** (a) @platformatic/kafka's own producer: one message object per record (its plain, documented path). */
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

/** (a) @platformatic/kafka's Consumer stream, one message object per record. */
async function consumePlain(brokers: string[], topic: string): Promise<number> {
  const consumer = new Consumer({
    clientId: 'bench-plain-consumer',
    groupId: uniqueName('bench-plain'),
    bootstrapBrokers: brokers,
  });
  const stream = await consumer.consume({
    topics: [topic],
    mode: MessagesStreamModes.EARLIEST,
    autocommit: false,
    maxBytes: 4 * 1024 * 1024,
    maxBytesPerPartition: 1024 * 1024,
    maxWaitTime: 500,
  });
  let seen = 0;
  let bytes = 0;
  let started = 0;
  const timer = setTimeout(() => void stream.close(), 600_000);
  try {
    for await (const m of stream) {
      if (started === 0) started = performance.now();
      bytes += m.key.length + m.value.length;
      for (const [name, value] of m.headers) bytes += name.length + value.length;
      if (++seen >= RECORDS) break;
    }
  } finally {
    clearTimeout(timer);
    await stream.close().catch(() => undefined);
  }
  const seconds = (performance.now() - started) / 1000;
  await consumer.close(true);
  if (seen < RECORDS) throw new Error(`the plain consumer read ${seen} of ${RECORDS}`);
  if (bytes === 0) throw new Error('nothing read');
  return RECORDS / seconds;
}

/** (c) TopicTail from the earliest offsets: BatchConsumer's fetch path without a group. */
async function consumeTail(brokers: string[], topic: string): Promise<number> {
  let seen = 0;
  let bytes = 0;
  let started = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = new TopicTail({
    brokers,
    clientId: 'bench-tail',
    topics: [topic],
    from: 'earliest',
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
  await tail.start();
  const timer = setTimeout(done, 600_000);
  await finished;
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  await tail.stop();
  if (seen < RECORDS) throw new Error(`the tail read ${seen} of ${RECORDS}`);
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
    produce_platformatic_plain: [],
    produce_batch_producer: [],
    produce_json_producer: [],
    consume_platformatic_plain: [],
    consume_batch_consumer: [],
    consume_batch_consumer_nocrc: [],
    consume_topic_tail: [],
  };
  const push = (name: string, value: number) => samples[name]?.push(Math.round(value));
  const countOf = async (topic: string) =>
    (await admin.topicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  const brokers = kafka.brokers;
  try {
    let shared: string | undefined;
    if (consumeOnly) {
      shared = uniqueName('bench-drain');
      await admin.ensureTopics([shared], { partitions: PARTITIONS });
      await fill(brokers, shared);
    }
    // Rounds alternate which path goes first (a warmer JIT and broker favour the later ones); the
    // figures are the best round per path, all rounds listed beside.
    const flip = values['ours-first'] ? 1 : 0;
    for (let round = 0; round < ROUNDS; round++) {
      const inOrder = (round + flip) % 2 === 0;
      let topic = shared;
      if (!topic) {
        const [topicA, topicB, topicC] = ['bench-plain', 'bench-batch', 'bench-json'].map(uniqueName) as [
          string,
          string,
          string,
        ];
        await admin.ensureTopics([topicA, topicB, topicC], { partitions: PARTITIONS });
        const paths = [
          async () => {
            log(`round ${round}: produce (a) platformatic Producer.send, an object per record`);
            push('produce_platformatic_plain', await producePlain(brokers, topicA));
          },
          async () => {
            log(`round ${round}: produce (b) BatchProducer`);
            push('produce_batch_producer', await produceAdapter(brokers, topicB));
          },
        ];
        if (!values['skip-json']) {
          paths.push(async () => {
            log(`round ${round}: produce (c) JsonProducer`);
            push('produce_json_producer', await produceJson(brokers, topicC));
          });
        }
        for (const path of inOrder ? paths : paths.reverse()) await path();
        for (const t of values['skip-json'] ? [topicA] : [topicA, topicC]) {
          const n = await countOf(t);
          if (n !== RECORDS) throw new Error(`${t} holds ${n} records, not ${RECORDS}`);
        }
        topic = topicB;
      }
      const inTopic = await countOf(topic);
      if (inTopic !== RECORDS) throw new Error(`${topic} holds ${inTopic} records, not ${RECORDS}`);
      const source = topic;
      const reads = [
        async () => {
          log(`round ${round}: consume (a) platformatic Consumer stream`);
          push('consume_platformatic_plain', await consumePlain(brokers, source));
        },
        async () => {
          log(`round ${round}: consume (b) BatchConsumer`);
          push('consume_batch_consumer', await consumeAdapter(brokers, source, true));
        },
        async () => {
          log(`round ${round}: consume (c) TopicTail`);
          push('consume_topic_tail', await consumeTail(brokers, source));
        },
      ];
      if (!values['no-crc-path']) {
        reads.push(async () => {
          log(`round ${round}: consume (b') BatchConsumer, no CRC check`);
          push('consume_batch_consumer_nocrc', await consumeAdapter(brokers, source, false));
        });
      }
      for (const read of inOrder ? reads : reads.reverse()) await read();
      log(
        `round ${round}: ${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.at(-1)])))}`,
      );
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

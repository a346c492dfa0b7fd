/** Reading a whole Kafka topic back, for assertions in tests and benchmarks. */
import { Kafka, logLevel } from 'kafkajs';
import { uniqueName } from './helpers.js';

export interface TopicRecord {
  partition: number;
  offset: number;
  key: string;
  value: Record<string, unknown>;
  /** Header values by name (the last value of a repeated name). */
  headers: Record<string, Buffer>;
}

function headersOf(headers: Record<string, unknown> | undefined): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (Buffer.isBuffer(last)) out[name] = last;
    else if (typeof last === 'string') out[name] = Buffer.from(last);
  }
  return out;
}

/** Every record of `topic` up to its high watermarks now, in partition then offset order. */
export async function readTopic(
  brokers: string[],
  topic: string,
  timeoutMs = 60_000,
): Promise<TopicRecord[]> {
  const kafka = new Kafka({ clientId: 'testkit-read-topic', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const highs = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  await admin.disconnect();
  const total = [...highs.values()].reduce((s, h) => s + h, 0);
  const records: TopicRecord[] = [];
  if (total === 0) return records;
  const consumer = kafka.consumer({ groupId: uniqueName('read-topic') });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`read ${records.length} of ${total} records`)),
        timeoutMs,
      );
      consumer
        .run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              if (Number(m.offset) >= (highs.get(batch.partition) ?? 0)) continue;
              records.push({
                partition: batch.partition,
                offset: Number(m.offset),
                key: m.key?.toString() ?? '',
                value: JSON.parse(m.value?.toString() ?? 'null') as Record<string, unknown>,
                headers: headersOf(m.headers),
              });
            }
            if (records.length >= total) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

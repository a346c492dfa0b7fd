/** Reading a whole topic back, for assertions in tests and benchmarks. */
import { KafkaClientError } from '../errors.js';
import type { ConnectionOptions } from '../options.js';
import type { ConsumedRecord } from '../protocol/partition-batch.js';
import { KafkaAdmin } from './kafka-admin.js';
import { TopicTail } from './topic-tail.js';

export interface ReadRecord {
  partition: number;
  offset: number;
  key: Buffer | undefined;
  value: Buffer | undefined;
  /** Header values by name (the last value of a repeated name). */
  headers: Map<string, Buffer>;
}

function headersOf(record: ConsumedRecord): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [name, value] of record.headerEntries) out.set(name.toString('utf8'), value);
  return out;
}

/** Every record of `topic` up to its high watermarks now, in partition then offset order. Bounded by `timeoutMs`. */
export async function readTopic(
  connection: ConnectionOptions,
  topic: string,
  timeoutMs = 60_000,
): Promise<ReadRecord[]> {
  const admin = new KafkaAdmin(connection);
  let offsets: Awaited<ReturnType<KafkaAdmin['topicOffsets']>>;
  try {
    offsets = await admin.topicOffsets(topic);
  } finally {
    await admin.close();
  }
  const highs = new Map(offsets.map((p) => [p.partition, p.high]));
  const records: ReadRecord[] = [];
  let remaining = offsets.reduce((s, p) => s + Number(p.high - p.low), 0);
  if (remaining === 0) return records;
  let failure: KafkaClientError | undefined;
  let lastRetried: KafkaClientError | undefined;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  // Group-less, from the earliest offsets: nothing is left behind in the broker (no group, no commits).
  const consumer = new TopicTail({
    ...connection,
    topics: [topic],
    from: 'earliest',
    eachBatch: (batch) => {
      const partition = batch.partition;
      const high = highs.get(partition) ?? 0n;
      for (const r of batch) {
        if (r.offset >= high) continue;
        records.push({
          partition,
          offset: Number(r.offset),
          key: r.key,
          value: r.value,
          headers: headersOf(r),
        });
        remaining -= 1;
      }
      if (remaining <= 0) done();
    },
    startTimeoutMs: timeoutMs,
    onError: (error) => {
      // Retriable faults are being retried (until the timeout); others end the read.
      if (error.retriable) {
        lastRetried = error;
        return;
      }
      failure = error;
      done();
    },
  });
  const timer = setTimeout(done, timeoutMs);
  try {
    await consumer.start();
    await finished;
  } finally {
    clearTimeout(timer);
    await consumer.stop();
  }
  if (failure) throw failure;
  if (remaining > 0) {
    throw new KafkaClientError(
      'TIMEOUT',
      `read ${records.length} records of ${topic}, ${remaining} missing after ${timeoutMs} ms${lastRetried ? ` (last fault: ${lastRetried.message})` : ''}`,
      { retriable: true, cause: lastRetried },
    );
  }
  return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

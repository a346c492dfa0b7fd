/** Shared setup of the postback tests: a receiver app on loopback, reading a topic, reading SSE. */
import { uniqueName } from '@feedpipe/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { Kafka, logLevel } from 'kafkajs';
import {
  type PostbackReceiver,
  type PostbackReceiverOptions,
  postbackRoutes,
} from '../src/postbacks/index.js';

export const SECRET = 'test-postback-secret-0123456789';

export interface ReceiverApp {
  app: FastifyInstance;
  receiver: PostbackReceiver;
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export async function startReceiverApp(
  options: Omit<PostbackReceiverOptions, 'secret'> & { secret?: string },
  port = 0,
): Promise<ReceiverApp> {
  const app = Fastify({ logger: false });
  const receiver = await postbackRoutes(app, { secret: SECRET, flushIntervalMs: 5, ...options });
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { app, receiver, baseUrl: `http://127.0.0.1:${bound}`, port: bound, close: () => app.close() };
}

export interface TopicRecord {
  partition: number;
  offset: number;
  key: string;
  value: Record<string, unknown>;
}

/** Every record of `topic` up to its high watermarks now, in partition then offset order. */
export async function readTopic(
  brokers: string[],
  topic: string,
  timeoutMs = 60_000,
): Promise<TopicRecord[]> {
  const kafka = new Kafka({ clientId: 'postback-test-read', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const highs = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  await admin.disconnect();
  const total = [...highs.values()].reduce((s, h) => s + h, 0);
  const records: TopicRecord[] = [];
  if (total === 0) return records;
  const consumer = kafka.consumer({ groupId: uniqueName('postback-read') });
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

/** Opens an SSE stream and collects `order` events' data until `count` arrived (bounded in time). */
export function collectSse(url: string, count: number, timeoutMs = 10_000) {
  const abort = new AbortController();
  const events: Array<Record<string, unknown>> = [];
  let opened: () => void = () => {};
  const open = new Promise<void>((r) => {
    opened = r;
  });
  const done = (async () => {
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const res = await fetch(url, { signal: abort.signal });
      if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
      opened();
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) events.push(JSON.parse(data.slice(6)));
          cut = buffer.indexOf('\n\n');
        }
        if (events.length >= count) break;
      }
    } catch (error) {
      // The time bound ends the stream: whatever arrived until then is the answer.
      if (!abort.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
    return events;
  })();
  return { open, done, events };
}

/**
 * At start, before any feed connection opens: the chunks an earlier run logged and Kafka never
 * acknowledged are decoded and produced again, then their segments are deleted.
 *
 * Not doubled, by identity rather than by reading Kafka's tail. Each chunk is produced under the
 * source identity of its first attempt (the earlier run's number, its connection and chunk sequence,
 * rows numbered as then: @feedpipe/contracts source-identity.ts), so a record Kafka already took is
 * the same (run, connection, chunk, row) again on the same partition, and every reader of the
 * contract drops it by `isSourceCopy` (the sink's SourceMarks does). Only a chunk that was in flight
 * at the crash (at most one per connection) can be partly in Kafka; every other unacknowledged chunk
 * was never sent. Reading the tail back instead would need, at every start, a time-indexed offset
 * lookup on every partition of every topic and a bounded read from there, and it could not tell a
 * batch the broker is still writing from one it lost; the identity is already the contract, costs
 * nothing at start, and works the same when Kafka is slow to come back.
 *
 * Replayed first: an instrument's replayed records must precede its new ones on the partition (its
 * trades in order). The new connections open meanwhile, but the ingestor sends nothing of this run
 * until the replay is acknowledged (ProducerPipeline.hold): the feed is read from the first moment,
 * buffered within the pipeline's bound, and the replay delays only its delivery.
 *
 * Produced here on the main thread (one ChunkEncoder and ChunkSender, the decode workers' own
 * parts): the workers' identity is this run's, and the replay happens before the live traffic.
 */
import { type FeedTopics, TOPIC_KINDS } from '@feedpipe/contracts';
import { ProduceSet, type TopicRecords } from '@feedpipe/kafka-client';
import { ChunkEncoder } from '../pipeline/chunk-encoder.js';
import { ChunkSender } from '../pipeline/chunk-sender.js';
import { readWalStreams, removeStream, type WalChunk } from './wal-reader.js';

export interface WalReplayOptions {
  dir: string;
  /**
   * Logs of other ingestor processes of the same client id on this host (a standby replays its
   * fallen leader's): replayed after this one's, each record under its own run's identity.
   */
  peerDirs?: readonly string[];
  /** The leader's lease (leader/lease-fence.ts): nothing is sent while it is closed. */
  fence?: SharedArrayBuffer;
  /**
   * Replay `dir` too (default). Not when this run already writes there: a handover's successor
   * leads with its connections open, and its own log is this run's.
   */
  ownLog?: boolean;
  brokers: string[];
  topics: FeedTopics;
  requestTimeoutMs?: number;
  /** The last trades of each replayed chunk (chunk-encoder.ts, TRADED_STRIDE), for the repeat guard. */
  onTraded?: (connection: number, traded: Float64Array) => void;
  log: (message: string) => void;
}

export interface WalReplayResult {
  streams: number;
  chunks: number;
  frames: number;
  /** Records produced, all topics. */
  records: number;
  /** Trade records produced. */
  trades: number;
}

function topicRecordsOf(
  encoder: ChunkEncoder,
  topics: FeedTopics,
  rowsByKind: readonly number[],
): TopicRecords[] {
  return TOPIC_KINDS.flatMap((kind, index) =>
    rowsByKind[index] === 0
      ? []
      : [
          {
            topic: topics[kind],
            layout: (partitionCount: number) => encoder.recordSets(index, partitionCount),
          },
        ],
  );
}

/**
 * One chunk of an earlier run. An acknowledged one is only counted: its last trades tell the repeat
 * guard what Kafka holds, so the snapshots the new connections' subscriptions bring are not
 * produced again (pipeline/trade-memory.ts). An unacknowledged one is produced.
 */
async function replayChunk(
  chunk: WalChunk,
  acknowledged: boolean,
  sender: ChunkSender,
  options: WalReplayOptions,
  result: WalReplayResult,
): Promise<void> {
  const encoder = new ChunkEncoder(chunk.pack, {
    run: chunk.run,
    connection: chunk.connection,
    chunk: chunk.sequence,
  });
  const { rowsByKind, traded } = encoder.count();
  if (acknowledged) {
    options.onTraded?.(chunk.connection, traded);
    return;
  }
  const topics = topicRecordsOf(encoder, options.topics, rowsByKind);
  if (topics.length > 0) await sender.deliver(new ProduceSet(topics));
  encoder.release();
  options.onTraded?.(chunk.connection, traded);
  result.chunks += 1;
  result.frames += chunk.frames;
  result.records += rowsByKind.reduce((sum, n) => sum + n, 0);
  result.trades += rowsByKind[0];
}

/** Replays every stream in the directory; resolves once Kafka acknowledged all of it. */
export async function replayWal(options: WalReplayOptions): Promise<WalReplayResult> {
  const result: WalReplayResult = { streams: 0, chunks: 0, frames: 0, records: 0, trades: 0 };
  // Read before anything is awaited: the new run's segments, which appear once its connections
  // open, are not among them.
  const dirs = [...(options.ownLog === false ? [] : [options.dir]), ...(options.peerDirs ?? [])];
  const streams = dirs.flatMap((dir) => readWalStreams(dir));
  if (streams.length === 0) return result;
  // Decoding starts on a later turn, so the caller's connections open first.
  await new Promise((resolve) => setImmediate(resolve));
  const sender = new ChunkSender({
    brokers: options.brokers,
    clientId: 'feedpipe-ingestor-wal-replay',
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    ...(options.fence ? { fence: options.fence } : {}),
  });
  try {
    for (const stream of streams) {
      for (const chunk of stream.chunks)
        await replayChunk(chunk, chunk.sequence <= stream.ackedThrough, sender, options, result);
      removeStream(stream);
      result.streams += 1;
    }
  } finally {
    await sender.close();
  }
  if (result.chunks > 0)
    options.log(
      `write-ahead log: replayed ${result.frames} frames (${result.chunks} chunks, ${result.records} records) that an earlier run had not got acknowledged by Kafka`,
    );
  return result;
}

/**
 * The feed write-ahead log against real failures: an ingestor child process SIGKILLed mid-flow and
 * started again on the same log, the topic read back with the project's Kafka client; and a log
 * that runs out of room while the feed goes on.
 */

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { isSourceCopy, prefixedTopics, SOURCE_HEADER, type SourceMark } from '@feedpipe/contracts';
import { readTopic, type TopicRecord, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor, type IngestorStats } from '../src/index.js';
import { readWalStreams } from '../src/wal/wal-reader.js';
import { addPackTrades } from '../src/wal/wal-trades.js';
import { inxIds, SIM_CLIENT, settle } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
const CHILD = new URL('./fixtures/wal-ingestor-child.ts', import.meta.url);
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  ingestor = undefined;
  server = undefined;
});

async function startChild(args: Record<string, unknown>): Promise<ChildProcess> {
  const child = fork(CHILD, [JSON.stringify(args)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`ingestor child exited with ${code} before READY`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) resolve();
    });
  });
  return child;
}

function statsOf(child: ChildProcess): Promise<IngestorStats> {
  return new Promise((resolve) => {
    const onMessage = (m: { type: string; stats: IngestorStats }) => {
      if (m.type !== 'stats') return;
      child.off('message', onMessage);
      resolve(m.stats);
    };
    child.on('message', onMessage);
    child.send({ cmd: 'stats' });
  });
}

interface TopicTrades {
  /** Trades a reader of the contract keeps (copies by source identity dropped), as `id:volume`. */
  kept: string[];
  /** Records dropped as copies of an earlier record with the same source identity. */
  copies: number;
  /** Per instrument, a kept volume not above the one before it on the partition. */
  outOfOrder: number;
}

/** The trades topic as a contract reader sees it: per partition, the `fp-src` copy rule. */
function readTrades(records: readonly TopicRecord[]): TopicTrades {
  const marks = new Map<number, Map<number, SourceMark>>();
  const lastVolume = new Map<number, number>();
  const result: TopicTrades = { kept: [], copies: 0, outOfOrder: 0 };
  for (const r of records) {
    let partitionMarks = marks.get(r.partition);
    if (!partitionMarks) {
      partitionMarks = new Map();
      marks.set(r.partition, partitionMarks);
    }
    if (isSourceCopy(partitionMarks, r.headers[SOURCE_HEADER])) {
      result.copies += 1;
      continue;
    }
    const id = r.value.securityId as number;
    const volume = r.value.volume as number;
    if (volume <= (lastVolume.get(id) ?? -1)) result.outOfOrder += 1;
    lastVolume.set(id, volume);
    result.kept.push(`${id}:${volume}`);
  }
  return result;
}

function segmentsIn(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cap'));
}

describe('feed write-ahead log', () => {
  it('SIGKILL mid-flow, restart on the same log: every frame read is in Kafka once, in order', async () => {
    const model = new MarketModel({ seed: 28, instruments: 600 });
    server = await startFeedServer({ model, port: 0, load: { packetsPerSecond: 4_000, tickIntervalMs: 5 } });
    const ids = inxIds(model, 200);
    const prefix = uniqueName('wal');
    const walDir = join(tempDir('wal-crash'), 'wal');
    const args = { feedUrl: server.url, brokers, prefix, walDir, ids };

    const first = await startChild(args);
    await waitFor(async () => (await statsOf(first)).producedTrades > 3_000, 30_000, 'trades produced');
    first.kill('SIGKILL');
    await once(first, 'exit');
    // What the killed process read and Kafka had not acknowledged: the replay's work.
    const left = readWalStreams(walDir);
    const unacknowledged = left.flatMap((s) => s.chunks.filter((c) => c.sequence > s.ackedThrough));
    const readBeforeKill = new Set<string>();
    for (const stream of left) for (const chunk of stream.chunks) addPackTrades(chunk.pack, readBeforeKill);
    expect(readBeforeKill.size).toBeGreaterThan(0);

    const second = await startChild(args);
    const afterRestart = await statsOf(second);
    expect(afterRestart.wal?.replayed.frames).toBe(unacknowledged.reduce((n, c) => n + c.frames, 0));
    await waitFor(async () => (await statsOf(second)).producedTrades > 1_000, 30_000, 'trades after restart');
    server.pause();
    const settled = await statsOf(second);
    await waitFor(async () => (await statsOf(second)).frames === settled.frames, 10_000, 'last frames');
    second.send({ cmd: 'stop' });
    await once(second, 'exit');
    // A clean stop had everything acknowledged: nothing is left to replay.
    expect(segmentsIn(walDir)).toEqual([]);

    const trades = readTrades(await readTopic(brokers, prefixedTopics(prefix).trades));
    const kept = new Set(trades.kept);
    expect([...readBeforeKill].filter((t) => !kept.has(t))).toEqual([]);
    expect(trades.kept.length - kept.size).toBe(0);
    expect(trades.outOfOrder).toBe(0);
  });

  it('a log at its bound counts the frames it could not log, and the feed keeps flowing to Kafka', async () => {
    const model = new MarketModel({ seed: 30, instruments: 600 });
    server = await startFeedServer({ model, port: 0, load: { packetsPerSecond: 3_000, tickIntervalMs: 5 } });
    const ids = inxIds(model, 100);
    const topics = prefixedTopics(uniqueName('walfull'));
    const walDir = join(tempDir('wal-full'), 'wal');
    const logs: string[] = [];
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics,
        partitions: 2,
        connections: 1,
        workers: 1,
        instruments: { trade: ids },
        // A bound of one segment: each segment fills it before its chunk ends, and the rest of that
        // chunk is not logged until Kafka's acknowledgement frees the segment.
        wal: { dir: walDir, maxBytes: 16_384, segmentBytes: 16_384 },
      },
      {
        credentials: SIM_CLIENT,
        log: (m) => logs.push(m),
      },
    );
    await ingestor.start();
    await waitFor(() => (ingestor?.stats().wal?.unloggedFrames.full ?? 0) > 20, 30_000, 'frames not logged');
    server.pause();
    await settle(server, ingestor);
    const stats = ingestor.stats();
    const unlogged = Object.values(stats.wal?.unloggedFrames ?? {}).reduce((n, v) => n + v, 0);
    expect(stats.wal?.loggedFrames).toBeGreaterThan(0);
    // Every frame read is either logged or counted as not logged.
    expect((stats.wal?.loggedFrames ?? 0) + unlogged).toBe(stats.frames);
    expect(logs.some((m) => m.startsWith('WRITE-AHEAD LOG FULL'))).toBe(true);
    // Not logged, still produced: every trade sent is in Kafka.
    const sent = ids.reduce((n, id) => n + (server?.sentFor(Number(id)).distinctTrade ?? 0), 0);
    expect(stats.producedTrades).toBe(sent);
    const metrics = await ingestor.registry.getSingleMetricAsString('ingestor_wal_unlogged_frames_total');
    expect(metrics).toMatch(/reason="full"} [1-9]/);
  });
});

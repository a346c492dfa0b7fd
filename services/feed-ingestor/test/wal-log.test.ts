/**
 * The write-ahead log's files without Kafka: what is written reads back as the same chunks, frame
 * for frame; acknowledged segments go; a torn tail reads as the prefix it is; a full disk (writes to
 * /dev/full fail with ENOSPC, as a full file system does) is a typed error, counted, and logging
 * starts again at the next chunk boundary.
 */

import { existsSync, readdirSync, statSync, symlinkSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FeedWal } from '../src/wal/feed-wal.js';
import { framesFileOf } from '../src/wal/segment-layout.js';
import { createWalMetrics } from '../src/wal/wal-metrics.js';
import { resolveWalOptions } from '../src/wal/wal-options.js';
import { readWalStreams } from '../src/wal/wal-reader.js';

const RUN = 0x2800_0001;

function openLog(
  dir: string,
  overrides: Record<string, number> = {},
  log: (m: string) => void = () => undefined,
) {
  return new FeedWal(resolveWalOptions({ dir, ...overrides }), RUN, createWalMetrics(new Registry()), log);
}

/** A frame whose bytes say which it is: n repeated, n + 1 bytes long. */
function frame(n: number): Uint8Array {
  return new Uint8Array(n + 1).fill(n % 251);
}

/** The frames of a pack (capture records), by their first byte and length. */
function framesOf(pack: Uint8Array): number[] {
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  const out: number[] = [];
  for (let at = 0; at < pack.byteLength; ) {
    const length = view.getUint32(at, true);
    out.push(length - 1);
    at += 12 + length;
  }
  return out;
}

describe('feed write-ahead log files', () => {
  it('reads back each chunk with its exact frames and which ones Kafka acknowledged', async () => {
    const dir = join(tempDir('wal-files'), 'wal');
    const wal = openLog(dir);
    for (let n = 0; n < 5; n++) wal.append(3, frame(n), 1_000 + n);
    wal.sealed(3, 3);
    wal.sealed(3, 2);
    for (let n = 5; n < 7; n++) wal.append(3, frame(n), 1_000 + n);
    wal.append(4, frame(40), 2_000);
    wal.acknowledged(3, 0);
    const streams = readWalStreams(dir);
    expect(streams.map((s) => [s.connection, s.ackedThrough])).toEqual(
      expect.arrayContaining([
        [3, 0],
        [4, -1],
      ]),
    );
    const three = streams.find((s) => s.connection === 3);
    expect(three?.chunks.map((c) => [c.sequence, framesOf(c.pack)])).toEqual([
      [0, [0, 1, 2]],
      [1, [3, 4]],
      // The chunk being filled at the end: never sealed, replayed as the next sequence.
      [2, [5, 6]],
    ]);
    expect(three?.run).toBe(RUN);
    await wal.close(false);
  });

  it('deletes a segment once Kafka acknowledged its last chunk, and everything on a drained stop', async () => {
    const dir = join(tempDir('wal-trim'), 'wal');
    const wal = openLog(dir, { segmentBytes: 4_096, maxBytes: 1 << 20 });
    const big = new Uint8Array(2_500);
    wal.append(0, big, 1);
    wal.append(0, big, 2);
    // A chunk boundary with the segment past its size: the next frame starts a new segment.
    wal.sealed(0, 2);
    wal.append(0, big, 3);
    expect(readdirSync(dir).filter((f) => f.endsWith('.cap'))).toHaveLength(2);
    wal.acknowledged(0, 0);
    expect(readdirSync(dir).filter((f) => f.endsWith('.cap'))).toEqual([
      framesFileOf({ run: RUN, connection: 0, firstChunk: 1 }),
    ]);
    expect(wal.stats().bytes).toBe(8 + 12 + 2_500);
    await wal.close(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads a segment cut inside a record as the frames before the cut', async () => {
    const dir = join(tempDir('wal-torn'), 'wal');
    const wal = openLog(dir);
    for (let n = 0; n < 4; n++) wal.append(1, frame(n + 10), n);
    await wal.close(false);
    const file = join(dir, framesFileOf({ run: RUN, connection: 1, firstChunk: 0 }));
    truncateSync(file, statSync(file).size - 5);
    const [stream] = readWalStreams(dir);
    expect(stream?.chunks.map((c) => framesOf(c.pack))).toEqual([[10, 11, 12]]);
  });

  it('a full disk is WAL_DISK_FULL, said once and counted; logging resumes at the next chunk in a new segment', async () => {
    const dir = join(tempDir('wal-enospc'), 'wal');
    const logs: string[] = [];
    const wal = openLog(dir, { retryAfterMs: 1 }, (m) => logs.push(m));
    // The first segment's file is the kernel's always-full device: every write fails with ENOSPC.
    symlinkSync('/dev/full', join(dir, framesFileOf({ run: RUN, connection: 0, firstChunk: 0 })));
    wal.append(0, frame(1), 1);
    wal.append(0, frame(2), 2);
    expect(wal.stats().unloggedFrames.disk_full).toBe(2);
    expect(logs.filter((m) => m.startsWith('WAL_DISK_FULL'))).toHaveLength(1);
    expect(wal.stats().lastError).toMatch(/^WAL_DISK_FULL: feed log: cannot open segment .*ENOSPC/);
    // The chunk ends; after the back-off the next chunk is logged whole in a segment of its own.
    wal.sealed(0, 2);
    await new Promise((r) => setTimeout(r, 5));
    wal.append(0, frame(3), 3);
    expect(wal.stats().loggedFrames).toBe(1);
    const next = join(dir, framesFileOf({ run: RUN, connection: 0, firstChunk: 1 }));
    expect(existsSync(next)).toBe(true);
    await wal.close(false);
    const stream = readWalStreams(join(dir)).find((s) => s.chunks.some((c) => c.sequence === 1));
    expect(stream?.chunks.filter((c) => c.sequence === 1).map((c) => framesOf(c.pack))).toEqual([[3]]);
  });
});

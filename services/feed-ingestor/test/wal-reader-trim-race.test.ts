/**
 * Reading another live process's write-ahead log while it trims it (a handover's successor replays
 * the leader's directory as the leader finishes): a segment deleted between the listing and its
 * read had all its chunks acknowledged, so it is left out, never an error. The deletion is made to
 * land exactly there: the owner trims from inside the reader's file read.
 */
import type * as Fs from 'node:fs';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { FeedWal } from '../src/wal/feed-wal.js';
import { createWalMetrics } from '../src/wal/wal-metrics.js';
import { resolveWalOptions } from '../src/wal/wal-options.js';
import { readWalStreams } from '../src/wal/wal-reader.js';

/** Called before each readFileSync / statSync of the reader, with the path. */
const beforeRead = vi.hoisted(() => ({ hook: undefined as ((path: string) => void) | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const hooked =
    <A extends unknown[], R>(read: (path: string, ...rest: A) => R) =>
    (path: string, ...rest: A): R => {
      beforeRead.hook?.(String(path));
      return read(path, ...rest);
    };
  return {
    ...fs,
    readFileSync: hooked(fs.readFileSync as (path: string, ...rest: unknown[]) => Buffer),
    statSync: hooked(fs.statSync as (path: string, ...rest: unknown[]) => Fs.Stats),
  };
});

const RUN = 0x2800_0002;

function twoSegments(dir: string): FeedWal {
  const wal = new FeedWal(
    resolveWalOptions({ dir, segmentBytes: 4_096, maxBytes: 1 << 20 }),
    RUN,
    createWalMetrics(new Registry()),
    () => undefined,
  );
  const big = new Uint8Array(2_500).fill(1);
  wal.append(0, big, 1);
  wal.append(0, big, 2);
  wal.sealed(0, 2);
  // Past the segment's size at a chunk boundary: the next frame opens a second segment.
  wal.append(0, big.fill(2), 3);
  return wal;
}

describe('reading a log its owner trims meanwhile', () => {
  it('leaves out a segment deleted between the listing and its read', async () => {
    const dir = join(tempDir('wal-race'), 'wal');
    const wal = twoSegments(dir);
    let trimmed = false;
    beforeRead.hook = (path) => {
      // The owner's Kafka acknowledged chunk 0 just as its segment was about to be read.
      if (!trimmed && path.endsWith('-0000000000.cap')) {
        trimmed = true;
        wal.acknowledged(0, 0);
      }
    };
    try {
      const streams = readWalStreams(dir);
      expect(trimmed).toBe(true);
      expect(streams).toHaveLength(1);
      expect(streams[0]?.ackedThrough).toBe(0);
      // Only the second segment's chunk is left to read: the first one's went with its file.
      expect(streams[0]?.chunks.map((c) => c.sequence)).toEqual([1]);
    } finally {
      beforeRead.hook = undefined;
      await wal.close(false);
    }
  });

  it('leaves out a stream removed whole between the listing and its read', async () => {
    const dir = join(tempDir('wal-race-all'), 'wal');
    const wal = twoSegments(dir);
    await wal.close(false);
    let removed = false;
    beforeRead.hook = (path) => {
      // The owner removes every file of the stream (all of it in Kafka) as the reader starts.
      if (!removed && path.endsWith('.cap')) {
        removed = true;
        for (const file of readdirSync(dir)) rmSync(join(dir, file));
      }
    };
    try {
      expect(readWalStreams(dir)).toEqual([]);
      expect(removed).toBe(true);
    } finally {
      beforeRead.hook = undefined;
    }
  });
});

/**
 * npm run bench:wal -- [--frames 200000] [--frame-bytes 330] [--fsync none|interval] [--interval-ms 1000]
 *
 * The feed write-ahead log's own cost, on the socket thread: --frames frames of --frame-bytes bytes
 * (330: a frame of ten trade packets, the simulator's typical message under load) appended over 5
 * connections, a chunk sealed every 100 frames of a connection and acknowledged right after, as the
 * pipeline does; in a temporary directory on the machine's disk. Reports µs per frame appended and,
 * with --fsync interval, the fdatasync rounds (they run on libuv's threads, off the event loop).
 * The last stdout line is the JSON result.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createWalMetrics, FeedWal, resolveWalOptions, type WalFsyncPolicy } from '@feedpipe/feed-ingestor';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { intFlag } from './support/flags.js';

const { values } = parseArgs({
  options: {
    frames: { type: 'string' },
    'frame-bytes': { type: 'string' },
    fsync: { type: 'string', default: 'none' },
    'interval-ms': { type: 'string' },
  },
});
const frames = intFlag(values.frames, 200_000, 'frames', 1, 10_000_000);
const frameBytes = intFlag(values['frame-bytes'], 330, 'frame-bytes', 1, 1_000_000);
const intervalMs = intFlag(values['interval-ms'], 1_000, 'interval-ms', 1, 60_000);
const fsync = values.fsync as WalFsyncPolicy;
const CONNECTIONS = 5;
const FRAMES_PER_CHUNK = 100;

async function main(): Promise<void> {
  const dir = join(tempDir('bench-wal'), 'wal');
  const registry = new Registry();
  const metrics = createWalMetrics(registry);
  const wal = new FeedWal(resolveWalOptions({ dir, fsync, fsyncIntervalMs: intervalMs }), 1, metrics, (m) =>
    process.stderr.write(`bench:wal: ${m}\n`),
  );
  const frame = new Uint8Array(frameBytes).fill(7);
  const sequences = new Array<number>(CONNECTIONS).fill(0);
  const started = performance.now();
  for (let i = 0; i < frames; i++) {
    const connection = i % CONNECTIONS;
    wal.append(connection, frame, Date.now() * 1000);
    if (Math.floor(i / CONNECTIONS) % FRAMES_PER_CHUNK === FRAMES_PER_CHUNK - 1) {
      wal.sealed(connection, FRAMES_PER_CHUNK);
      wal.acknowledged(connection, sequences[connection] as number);
      sequences[connection] = (sequences[connection] as number) + 1;
    }
    // Let the event loop run (and the fsync timer fire) as the feed's socket events would.
    if (i % 5_000 === 4_999) await new Promise((r) => setImmediate(r));
  }
  const elapsedMs = performance.now() - started;
  // One more interval, so the last round of syncs is measured.
  if (fsync === 'interval') await new Promise((r) => setTimeout(r, intervalMs + 100));
  await wal.close(true);
  const fsyncs = (await metrics.fsyncSeconds.get()).values;
  const count = fsyncs.find((v) => v.metricName === 'ingestor_wal_fsync_seconds_count')?.value ?? 0;
  const sum = fsyncs.find((v) => v.metricName === 'ingestor_wal_fsync_seconds_sum')?.value ?? 0;
  const stats = wal.stats();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    `${JSON.stringify({
      bench: 'wal',
      fsync,
      frames,
      frame_bytes: frameBytes,
      us_per_frame: Number(((elapsedMs * 1000) / frames).toFixed(2)),
      mb_per_s: Number(((frames * (frameBytes + 12)) / 1e6 / (elapsedMs / 1000)).toFixed(1)),
      unlogged: Object.values(stats.unloggedFrames).reduce((n, v) => n + v, 0),
      fsync_rounds: count,
      fsync_mean_ms: count > 0 ? Number(((sum / count) * 1000).toFixed(2)) : 0,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:wal failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

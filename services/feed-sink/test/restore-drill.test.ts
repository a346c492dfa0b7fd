/**
 * The restore drill (issue 29): the sink stores a feed, `feedpipe-store backup` takes a full and
 * then an incremental backup between runs, more records are stored after the last backup, the data
 * directory is destroyed, `feedpipe-store restore` brings the last backup back, and the sink
 * resumes: it finds its store below the group's commits and reads the records after the backup
 * again from Kafka. The store then holds exactly what a sink that never went through the drill
 * stores from the same topics (same rows, same hash, same 1-minute bars), nothing twice.
 *
 * Embedded chDB only (no ClickHouse server binary here); the server path is the same statements
 * (packages/store/src/backup). Each sink run, backup and restore is a process of its own, as in
 * operation: chDB locks its data directory to one process.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FEED_TABLES } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import { describe, expect, inject, it } from 'vitest';
import { topicsFor } from './fixtures/feed-fixtures.js';
import { tradeValue } from './fixtures/feed-records.js';
import { produce } from './fixtures/produce.js';
import type { TableFingerprint } from './fixtures/store-fingerprint.js';

const brokers = inject('kafkaBrokers');
const DRILL_SINK = fileURLToPath(new URL('./fixtures/drill-sink.ts', import.meta.url));
const STORE_CLI = fileURLToPath(new URL('../../../packages/store/bin/feedpipe-store.mjs', import.meta.url));

const INSTRUMENTS = 20;
const TRADES_PER_INSTRUMENT = 25;
const TRADES_PER_BATCH = INSTRUMENTS * TRADES_PER_INSTRUMENT;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a child to its end (bounded: killed after `timeoutMs`). */
function run(args: string[], env: Record<string, string>, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function lastJson<T>(result: Run, what: string): T {
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  if (result.code !== 0 || !line.startsWith('{')) {
    throw new Error(`${what} failed (exit ${result.code}): ${result.stderr.slice(-2_000)}`);
  }
  return JSON.parse(line) as T;
}

interface SinkRun {
  done: boolean;
  stats: unknown;
  fingerprint: Record<string, TableFingerprint>;
  logs: string[];
}

async function runSink(
  dataDir: string,
  prefix: string,
  groupId: string,
  expectTicks: number,
): Promise<SinkRun> {
  const args = ['--import', 'tsx', DRILL_SINK, brokers.join(','), prefix, join(dataDir, 'chdb'), groupId];
  const result = lastJson<SinkRun>(await run([...args, String(expectTicks)], {}, 180_000), 'sink run');
  expect(result.done, `sink run to ${expectTicks} ticks: ${JSON.stringify(result)}`).toBe(true);
  return result;
}

function storeCli(dataDir: string, ...args: string[]): Promise<Run> {
  return run([STORE_CLI, ...args], { DATA_DIR: dataDir }, 180_000);
}

/** One batch of every topic's records, told apart by `n` (volumes, ids and times of its own). */
async function produceBatch(topics: ReturnType<typeof topicsFor>, n: number): Promise<void> {
  const at = (i: number) => 1_760_000_000_000_000 + n * 1_000_000 + i;
  // Receive times unique across batches too: a bar's open and close (argMin/argMax by receive
  // time) would otherwise depend on which of two equal times a merge met first.
  const trades = Array.from({ length: TRADES_PER_BATCH }, (_, i) => {
    const id = (i % INSTRUMENTS) + 1;
    const volume = 1 + n * TRADES_PER_INSTRUMENT + Math.floor(i / INSTRUMENTS);
    return { key: String(id), value: tradeValue(id, volume, at(1_000 + i)) };
  });
  await produce(brokers, topics.trades, trades);
  await produce(
    brokers,
    topics.ohlc,
    Array.from({ length: 5 }, (_, i) => ({
      key: String(i + 1),
      value: JSON.stringify({
        type: 'ohlc',
        segment: 14,
        securityId: i + 1,
        open: n,
        close: n + 1,
        high: n + 2,
        low: n,
        receivedAt: at(i),
      }),
    })),
  );
  await produce(brokers, topics.reference, [
    {
      key: '7',
      value: JSON.stringify({
        type: 'prev_close',
        segment: 14,
        securityId: 7,
        prevClose: 90 + n,
        receivedAt: at(10),
      }),
    },
  ]);
  await produce(brokers, topics.status, [
    {
      key: '0',
      value: JSON.stringify({
        type: 'market_status',
        segment: 14,
        securityId: 0,
        marketType: [1, 0, 0],
        status: n,
        receivedAt: at(20),
      }),
    },
    {
      key: String(100 + n),
      value: JSON.stringify({
        type: 'gap',
        segment: 1,
        securityId: 100 + n,
        subscription: 'trade',
        cause: 'token_renewal',
        startedAt: at(30),
        endedAt: at(30) + 1_500_000,
        connection: 1,
      }),
    },
  ]);
}

interface BackupOut {
  name: string;
  base: string | null;
  files: number;
  filesStored: number;
}

describe('restore drill', () => {
  it('backs up, loses the data directory, restores and resumes: the rows of a run without the drill, none twice', async () => {
    const root = tempDir('restore-drill');
    const data = join(root, 'data');
    const backups = join(root, 'backups');
    const prefix = uniqueName('drill');
    const topics = topicsFor(prefix);
    await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topics), { partitions: 3 });
    const group = uniqueName('drillgroup');

    // Stored, then a full backup.
    await produceBatch(topics, 0);
    await runSink(data, prefix, group, TRADES_PER_BATCH);
    const full = lastJson<BackupOut>(await storeCli(data, 'backup', '--to', backups), 'full backup');
    expect(full.base).toBeNull();
    expect(full.filesStored).toBeGreaterThan(0);

    // More stored, then an incremental backup on the first: only new and merged parts are written.
    await produceBatch(topics, 1);
    await runSink(data, prefix, group, 2 * TRADES_PER_BATCH);
    const incremental = lastJson<BackupOut>(
      await storeCli(data, 'backup', '--to', backups),
      'incremental backup',
    );
    expect(incremental.base).toBe(full.name);
    expect(incremental.filesStored).toBeLessThan(incremental.files);

    // Stored after the last backup: committed in Kafka, then lost with the data directory.
    await produceBatch(topics, 2);
    await runSink(data, prefix, group, 3 * TRADES_PER_BATCH);
    rmSync(data, { recursive: true, force: true });

    const restored = lastJson<{ name: string }>(
      await storeCli(data, 'restore', '--from', backups),
      'restore',
    );
    expect(restored.name).toBe(incremental.name);
    const again = await storeCli(data, 'restore', '--from', backups);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('RESTORE_TARGET_NOT_EMPTY');

    // The sink resumes on the restored store while the feed goes on.
    await produceBatch(topics, 3);
    const drilled = await runSink(data, prefix, group, 4 * TRADES_PER_BATCH);
    expect(drilled.logs.some((m) => m.includes('reading again from'))).toBe(true);

    // A run without the drill: a fresh store and group read the same topics from the start.
    const reference = await runSink(
      join(root, 'reference'),
      prefix,
      uniqueName('refgroup'),
      4 * TRADES_PER_BATCH,
    );

    expect(drilled.fingerprint).toEqual(reference.fingerprint);
    const ticks = drilled.fingerprint[FEED_TABLES.ticks.name];
    expect(ticks?.rows).toBe(4 * TRADES_PER_BATCH);
    for (const [table, print] of Object.entries(drilled.fingerprint)) {
      // 0 doubled: one row per Kafka position (for the bars: one trade per tick).
      expect(print.positions, table).toBe(table === FEED_TABLES.bars1m.name ? ticks?.rows : print.rows);
      expect(print.rows, table).toBeGreaterThan(0);
    }
    expect(drilled.fingerprint[FEED_TABLES.feedGaps.name]?.rows).toBe(4);
  }, 900_000);
});

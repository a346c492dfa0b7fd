/**
 * `feed-sink run` as compose starts it, its DATA_DIR on a 64 MB file system made for the test and
 * the disk guard set by the environment (STORE_MIN_FREE_*): the filled disk shows on /metrics
 * (paused 1, the StoreDiskLow condition) while /readyz stays ready (the member is in its group);
 * freed, it stores the rest; after SIGTERM the store holds every record once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FEED_TABLES } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { createStore } from '@feedpipe/store';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { topicsFor } from './fixtures/feed-fixtures.js';
import { tradeMessages } from './fixtures/feed-records.js';
import { produce } from './fixtures/produce.js';
import { mountSmallDisk, type SmallDisk } from './fixtures/small-disk.js';

const brokers = inject('kafkaBrokers');
const BIN = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'bin', 'feed-sink.mjs');
const MiB = 1024 * 1024;

let disk: SmallDisk | undefined;
let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill('SIGKILL');
  disk?.free();
  disk?.unmount();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The value of an unlabelled metric, or the sum of a labelled one, from /metrics text. */
function metric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

describe('feed-sink run on a small disk', () => {
  it("pauses by the environment's threshold, stays ready, resumes, stores every record once", async () => {
    disk = mountSmallDisk(64);
    const prefix = uniqueName('sinkcli');
    const topics = topicsFor(prefix);
    await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topics), { partitions: 3 });
    const port = await freePort();
    child = spawn(process.execPath, [BIN, 'run'], {
      env: {
        ...process.env,
        MALLOC_ARENA_MAX: '2',
        MALLOC_MMAP_THRESHOLD_: '262144',
        KAFKA_BROKERS: brokers.join(','),
        TOPIC_TRADES: topics.trades,
        TOPIC_OHLC: topics.ohlc,
        TOPIC_REFERENCE: topics.reference,
        TOPIC_STATUS: topics.status,
        DATA_DIR: disk.dir,
        CLICKHOUSE_URL: '',
        METRICS_PORT: String(port),
        STORE_MIN_FREE_PERCENT: '0',
        STORE_MIN_FREE_BYTES: String(24 * MiB),
        STORE_DISK_CHECK_MS: '200',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-8000);
    });
    const exit = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    const scrape = async () => (await fetch(`${url}/metrics`).catch(() => undefined))?.text() ?? '';
    await waitFor(
      async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok === true,
      60_000,
      () => `the sink ready (${stderr})`,
      200,
    );

    const before = tradeMessages(30, 100, 1);
    await produce(brokers, topics.trades, before);
    await waitFor(
      async () => metric(await scrape(), 'sink_rows_inserted_total') >= before.length,
      60_000,
      'the first records stored',
      200,
    );

    disk.fill(12 * MiB);
    await waitFor(
      async () => metric(await scrape(), 'sink_store_writes_paused') === 1,
      30_000,
      'the paused gauge',
      200,
    );
    const during = tradeMessages(30, 100, 101);
    await produce(brokers, topics.trades, during);
    await waitFor(
      async () => metric(await scrape(), 'sink_consumer_lag') >= during.length,
      30_000,
      'the held records as lag',
      200,
    );
    const paused = await scrape();
    expect(metric(paused, 'sink_rows_inserted_total')).toBe(before.length);
    expect(metric(paused, 'sink_store_free_bytes')).toBeLessThan(24 * MiB);
    expect((await fetch(`${url}/readyz`)).ok).toBe(true);

    disk.free();
    const total = before.length + during.length;
    await waitFor(
      async () => metric(await scrape(), 'sink_rows_inserted_total') >= total,
      60_000,
      'every record stored',
      200,
    );
    expect(metric(await scrape(), 'sink_store_writes_paused')).toBe(0);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    child = undefined;
    expect(stderr).toContain('pausing writes');
    expect(stderr).toContain('resuming writes');

    const store = createStore({ dataDir: join(disk.dir, 'chdb') });
    try {
      const [row] = await store.internal.rows<{ n: string; d: string }>(
        `SELECT count() AS n, uniqExact(security_id, volume) AS d FROM ${FEED_TABLES.ticks.name}`,
      );
      expect(Number(row?.n)).toBe(total);
      expect(Number(row?.d)).toBe(total);
    } finally {
      await store.close();
    }
  }, 240_000);
});

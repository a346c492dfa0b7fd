/**
 * npm run bench:sink -- [--records 5000000] [--instruments 25000] [--per-frame 100]
 *                         [--batch-rows N] [--buffered-rows N]
 *
 * The Kafka -> ClickHouse sink alone. A capture of --records trades is generated (frames of
 * --per-frame trades over --instruments instruments, every trade one lot more than its instrument's
 * last, so per instrument the volume is a sequence number), replayed into fresh topics of a real
 * local broker through the ingestor's own decode workers and producer, and only then is the sink
 * started on them: the clock measures the drain of a full topic into embedded ClickHouse (or
 * CLICKHOUSE_URL), from the sink's start to the last row stored. Stored rows and unique
 * (instrument, volume) pairs are checked at the end. Progress on stderr; the last stdout line is
 * the JSON result: {"bench":"sink","records":N,"replay_per_s":...,"drain_per_s":...}.
 *
 * Beside the rate, the CPU the drain cost: microseconds per row of the sink (this process and its
 * children but the broker: the embedded engine runs in a child process; the replay's workers are
 * idle by then) and of the broker's JVM. On a machine shared with other work the rate follows the share of the cores the
 * drain got; the CPU per row does much less, so it is the figure to compare across runs.
 * --batch-rows and --buffered-rows set the sink's maxBatchRows and maxBufferedRows (default: the
 * sink's own defaults), to measure the block size's trade-off of CPU against memory.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FEED_TABLES, prefixedTopics } from '@feedpipe/contracts';
import { replayCapture } from '@feedpipe/feed-ingestor';
import { createSink } from '@feedpipe/feed-sink';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { createStore, EMBEDDED_ENGINE_ALLOCATOR_ENV, runMigrations } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { treeCpuSeconds } from './support/process-tree.js';
import { writeTradeCapture } from './support/trade-capture.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '5000000' },
    instruments: { type: 'string', default: '25000' },
    'per-frame': { type: 'string', default: '100' },
    'batch-rows': { type: 'string' },
    'buffered-rows': { type: 'string' },
  },
});

function bounded(name: string, raw: string | undefined, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > max)
    throw new Error(`--${name} must be in 1..${max}`);
  return value;
}

const records = bounded('records', values.records, 50_000_000);
const instruments = bounded('instruments', values.instruments, 100_000);
const perFrame = bounded('per-frame', values['per-frame'], 1_000);
/** Sink options the flags override; left out (the sink's defaults) when not given. */
const blockSizes = {
  ...(values['batch-rows'] ? { maxBatchRows: bounded('batch-rows', values['batch-rows'], 1_000_000) } : {}),
  ...(values['buffered-rows']
    ? { maxBufferedRows: bounded('buffered-rows', values['buffered-rows'], 10_000_000) }
    : {}),
};
const log = (m: string) => process.stderr.write(`bench:sink: ${m}\n`);

async function main(): Promise<void> {
  const missing = Object.entries(EMBEDDED_ENGINE_ALLOCATOR_ENV).filter(([k, v]) => process.env[k] !== v);
  if (missing.length > 0 && !process.env.CLICKHOUSE_URL) {
    log(
      `note: run with ${missing.map(([k, v]) => `${k}=${v}`).join(' ')} for the sink's production allocator`,
    );
  }
  const dir = tempDir('bench-sink');
  // The broker's log in memory where there is a tmpfs, as bench:pipeline does (the disk is not measured).
  const kafkaDir = existsSync('/dev/shm')
    ? join('/dev/shm', uniqueName('bench-sink-kafka'))
    : join(dir, 'kafka');
  const kafka = await startLocalKafka({ dataDir: kafkaDir, heap: '1g' });
  const store = createStore({ url: process.env.CLICKHOUSE_URL || undefined, dataDir: join(dir, 'store') });
  try {
    await runMigrations(store.internal);
    const capture = join(dir, 'trades.capture');
    log(`writing a capture of ${records} trades over ${instruments} instruments`);
    // A microsecond apart, as the trades were numbered.
    await writeTradeCapture(capture, { records, instruments, perFrame, receivedAt: (n, start) => start + n });
    const topics = prefixedTopics(uniqueName('bench-sink'));
    log('replaying it into Kafka');
    const replay = await replayCapture({ file: capture, brokers: kafka.brokers, topics, workers: 2 });
    if (replay.produced !== records) throw new Error(`replay produced ${replay.produced} of ${records}`);
    const replayPerS = Math.round(records / replay.seconds);
    log(`replayed at ${replayPerS}/s; starting the sink`);
    const sink = createSink(
      {
        brokers: kafka.brokers,
        groupId: uniqueName('bench-sink'),
        topics,
        maxBatchAgeMs: 1_000,
        ...blockSizes,
      },
      {
        store,
        log: (m) => log(`sink: ${m}`),
      },
    );
    const started = performance.now();
    const sinkCpuSeconds = () => treeCpuSeconds(process.pid, [kafka.pid]);
    const cpuAtStart = sinkCpuSeconds();
    const brokerCpuAtStart = treeCpuSeconds(kafka.pid, []);
    await sink.start();
    const inserted = () => sink.stats().inserted[FEED_TABLES.ticks.name] ?? 0;
    let lastLog = started;
    await waitFor(
      () => {
        const now = performance.now();
        if (now - lastLog > 5_000) {
          lastLog = now;
          log(`${inserted()} of ${records} stored`);
        }
        return inserted() >= records;
      },
      600_000,
      () => `the sink to store every trade (stored ${inserted()} of ${records})`,
      50,
    );
    const drainSeconds = (performance.now() - started) / 1000;
    const sinkCpu = sinkCpuSeconds() - cpuAtStart;
    const brokerCpu = treeCpuSeconds(kafka.pid, []) - brokerCpuAtStart;
    await sink.stop();
    const [row] = await store.internal.rows<{ n: string | number; u: string | number }>(
      `SELECT count() AS n, uniqExact(security_id, volume) AS u FROM ${FEED_TABLES.ticks.name}`,
    );
    console.log(
      JSON.stringify({
        bench: 'sink',
        records,
        instruments,
        replay_per_s: replayPerS,
        drain_per_s: Math.round(records / drainSeconds),
        ...(values['batch-rows'] ? { batch_rows: blockSizes.maxBatchRows } : {}),
        drain_seconds: Math.round(drainSeconds * 100) / 100,
        sink_cpu_us_per_row: Math.round((sinkCpu / records) * 1e8) / 100,
        broker_cpu_us_per_row: Math.round((brokerCpu / records) * 1e8) / 100,
        stored: Number(row?.n),
        duplicates: Number(row?.n) - Number(row?.u),
        lost: records - Number(row?.u),
      }),
    );
  } finally {
    await store.close();
    await kafka.stop();
    rmSync(kafkaDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:sink: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

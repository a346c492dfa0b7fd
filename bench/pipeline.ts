/**
 * npm run bench:pipeline -- --rate R --seconds S --instruments N [--connections 5] [--workers 2] [--no-sink]
 *                            [--warmup W] [--kafka-on-disk] [--wal none|interval] [--socket-thread on|off]
 *
 * The simulator in load mode (own process) -> feed ingestor (this process, decode workers) -> real
 * local Kafka -> sink -> embedded ClickHouse. Reports sent, produced, stored, lost, duplicated,
 * sustained ticks/s and receive-to-Kafka-ack latency. The load runs --warmup seconds (default 5)
 * before the measured --seconds, so JIT compilation in the JVM and the workers is not counted as
 * steady-state latency; lost and duplicated ticks are counted over everything sent, warm-up
 * included. --wal turns the ingestor's write-ahead log on (in the run's temporary directory) with
 * that fsync policy, to measure its cost. --socket-thread off keeps the feed sockets on the
 * ingestor's main thread (default: on a thread of their own), to measure that thread's cost. Progress goes to stderr; the last stdout line is the JSON
 * result.
 */
import { parseArgs } from 'node:util';
import { WAL_FSYNC_POLICIES, type WalFsyncPolicy } from '@feedpipe/feed-ingestor';
import { startPipeline } from './support/pipeline-harness.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '30' },
    instruments: { type: 'string', default: '25000' },
    connections: { type: 'string', default: '5' },
    workers: { type: 'string', default: '2' },
    'no-sink': { type: 'boolean', default: false },
    'store-wait': { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    'kafka-on-disk': { type: 'boolean', default: false },
    wal: { type: 'string' },
    'socket-thread': { type: 'string', default: 'on' },
  },
});

function bounded(name: string, raw: string | undefined, max: number): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new Error(`--${name} must be in 1..${max}`);
  return value;
}

const rate = bounded('rate', values.rate, 5_000_000);
const seconds = bounded('seconds', values.seconds, 3_600);
const instruments = bounded('instruments', values.instruments, 25_000);
const connections = bounded('connections', values.connections, 5);
const workers = bounded('workers', values.workers, 8);
const storeWaitSeconds = bounded('store-wait', values['store-wait'], 600);
const warmupSeconds = values.warmup === '0' ? 0 : bounded('warmup', values.warmup, 600);
const wal = values.wal;
if (wal !== undefined && !WAL_FSYNC_POLICIES.includes(wal as WalFsyncPolicy))
  throw new Error(`--wal must be one of ${WAL_FSYNC_POLICIES.join(', ')}`);
if (values['socket-thread'] !== 'on' && values['socket-thread'] !== 'off')
  throw new Error('--socket-thread must be on or off');
const socketThread = values['socket-thread'] === 'on';
const log = (m: string) => process.stderr.write(`bench:pipeline: ${m}\n`);

async function main(): Promise<void> {
  const pipeline = await startPipeline({
    rate,
    instruments,
    connections,
    workers,
    sink: !values['no-sink'],
    kafkaOnDisk: values['kafka-on-disk'],
    walFsync: wal as WalFsyncPolicy | undefined,
    socketThread,
    log,
  });
  const { ingestor } = pipeline;
  // Let the subscription snapshots settle before the clock starts.
  await new Promise((r) => setTimeout(r, 3_000));
  await ingestor.drain();
  pipeline.resume();
  if (warmupSeconds > 0) {
    log(`warming up for ${warmupSeconds} s at ${rate} packets/s`);
    await new Promise((r) => setTimeout(r, warmupSeconds * 1_000));
  }
  const producedBase = ingestor.stats().produced;
  ingestor.latency.reset();

  log(
    `running ${instruments} instruments over ${connections} connections at ${rate} packets/s for ${seconds} s`,
  );
  const started = performance.now();
  for (let s = 1; s <= seconds; s++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const st = ingestor.stats();
    log(
      `t=${s}s produced=${st.produced - producedBase} buffered=${(st.bufferedBytes / 1e6).toFixed(1)}MB p99=${ingestor.latency.percentileMs(0.99).toFixed(1)}ms`,
    );
  }
  pipeline.pause();
  await pipeline.settle(120_000);
  const elapsed = (performance.now() - started) / 1000;
  const end = await pipeline.simStats();
  const stats = ingestor.stats();
  const sent = end.trades;
  const produced = stats.producedTrades;
  log(`sent ${sent} trades in all; produced ${produced} trades in ${elapsed.toFixed(1)} s`);

  let stored = -1;
  let unique = -1;
  if (pipeline.hasSink) {
    const storeDeadline = Date.now() + storeWaitSeconds * 1000;
    while ((await pipeline.insertedTrades()) < sent && Date.now() < storeDeadline) {
      await pipeline.flushSink();
      await new Promise((r) => setTimeout(r, 250));
    }
    const counts = await pipeline.storedTrades();
    stored = counts.rows;
    unique = counts.unique;
    log(
      `stored ${stored} rows (${unique} unique) ${stored >= sent ? 'within' : 'NOT within'} ${storeWaitSeconds} s of the end`,
    );
  }

  const result = {
    bench: 'pipeline',
    rate,
    seconds,
    warmup_seconds: warmupSeconds,
    instruments,
    connections,
    sent,
    produced,
    stored,
    lost: pipeline.hasSink ? sent - unique : sent - produced,
    duplicates: pipeline.hasSink ? stored - unique : 0,
    ticks_per_s: Math.round((stats.produced - producedBase) / elapsed),
    ack_p50_ms: Number(ingestor.latency.percentileMs(0.5).toFixed(2)),
    ack_p99_ms: Number(ingestor.latency.percentileMs(0.99).toFixed(2)),
    sim_skipped: end.stats.skipped,
    buffer_full_events: stats.bufferFullEvents,
    kafka_log: pipeline.kafkaLog,
    wal: wal ?? 'off',
    socket_thread: socketThread,
    wal_unlogged_frames: Object.values(stats.wal?.unloggedFrames ?? {}).reduce((n, v) => n + v, 0),
    wal_fsyncs: stats.wal?.fsyncs ?? 0,
  };
  await pipeline.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:pipeline failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

/**
 * npm run bench:pipeline -- --rate R --seconds S --instruments N [--connections 5] [--workers 2] [--no-sink]
 *
 * The simulator in load mode (own process) -> feed ingestor (this process, decode workers) -> real
 * local Kafka -> sink -> embedded ClickHouse. In load mode every trade adds one lot, so per
 * instrument the volume is a sequence number: stored rows minus unique (instrument, volume) pairs
 * are duplicates, and sent minus unique stored are losses.
 *
 * Progress goes to stderr; the last stdout line is the JSON result.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createFeedIngestor, createSink } from '@feedpipe/feed-ingestor';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { createStore, runMigrations } from '@feedpipe/store';
import { tempDir, uniqueName } from '@feedpipe/testkit';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '30' },
    instruments: { type: 'string', default: '25000' },
    connections: { type: 'string', default: '5' },
    workers: { type: 'string', default: '2' },
    'no-sink': { type: 'boolean', default: false },
    'store-wait': { type: 'string', default: '10' },
  },
});

const rate = Number(values.rate);
const seconds = Number(values.seconds);
const instruments = Number(values.instruments);
const connections = Number(values.connections);
const workers = Number(values.workers);
const withSink = !values['no-sink'];
const storeWaitSeconds = Number(values['store-wait']);
for (const [name, v, max] of [
  ['rate', rate, 5_000_000],
  ['seconds', seconds, 3_600],
  ['instruments', instruments, 25_000],
  ['connections', connections, 5],
  ['workers', workers, 8],
] as const) {
  if (!Number.isFinite(v) || v <= 0 || v > max) throw new Error(`--${name} must be in 1..${max}`);
}

const log = (m: string) => process.stderr.write(`bench:pipeline: ${m}\n`);

interface SimStats {
  stats: { packets: number; messages: number; skipped: number; deferred: number };
  trades: number;
}

function request<T>(child: ChildProcess, cmd: string, type: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: { type: string }) => {
      if (m.type === type) {
        child.off('message', onMessage);
        resolve(m as T);
      }
    };
    child.on('message', onMessage);
    child.send({ cmd });
  });
}

async function main(): Promise<void> {
  const workDir = tempDir('bench-pipeline');
  let kafka: LocalKafka | undefined;
  let brokers: string[];
  if (process.env.KAFKA_BROKERS) {
    brokers = process.env.KAFKA_BROKERS.split(',');
  } else {
    log('starting a local Kafka broker...');
    kafka = await startLocalKafka({ dataDir: join(workDir, 'kafka'), heap: '1g' });
    brokers = kafka.brokers;
  }

  const sim = fork(
    new URL('./support/sim-process.ts', import.meta.url),
    [String(instruments), String(rate)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const ready = await new Promise<{ url: string; ids: number[] }>((resolve) =>
    sim.once('message', (m) => resolve(m as { url: string; ids: number[] })),
  );
  const ids = ready.ids.slice(0, instruments).map(String);
  const prefix = uniqueName('bench');
  const topics = {
    trades: `${prefix}.trades`,
    ohlc: `${prefix}.ohlc`,
    reference: `${prefix}.reference`,
    status: `${prefix}.status`,
  };

  const store = createStore({ url: process.env.CLICKHOUSE_URL, dataDir: join(workDir, 'chdb') });
  await runMigrations(store.client);
  const sink = withSink
    ? createSink({
        brokers,
        store,
        topics,
        groupId: `${prefix}-sink`,
        maxBatchRows: 200_000,
        maxBatchAgeMs: 1_000,
        log,
      })
    : undefined;

  const ingestor = createFeedIngestor({
    feedUrl: ready.url,
    credentials: { clientId: '1000000001', token: 'sim-token-1000000001', authType: 2 },
    brokers,
    topics,
    partitions: 12,
    connections,
    instruments: { trade: ids },
    workers,
    log,
  });
  await ingestor.start();
  await sink?.start();
  // Let the subscription snapshots settle before the clock starts.
  await new Promise((r) => setTimeout(r, 3_000));
  await ingestor.drain();
  const base = await request<SimStats>(sim, 'stats', 'stats');
  const producedBase = ingestor.stats().produced;
  ingestor.latency.reset();

  log(
    `running ${instruments} instruments over ${connections} connections at ${rate} packets/s for ${seconds} s`,
  );
  const started = performance.now();
  sim.send({ cmd: 'resume' });
  for (let s = 1; s <= seconds; s++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const st = ingestor.stats();
    log(
      `t=${s}s produced=${st.produced - producedBase} buffered=${(st.bufferedBytes / 1e6).toFixed(1)}MB p99=${ingestor.latency.percentileMs(0.99).toFixed(1)}ms`,
    );
  }
  sim.send({ cmd: 'pause' });
  const end = await request<SimStats>(sim, 'stats', 'stats');
  // Everything the simulator queued must arrive and be acknowledged.
  const deadline = Date.now() + 120_000;
  while (ingestor.stats().frames < end.stats.messages && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await ingestor.drain();
  const elapsed = (performance.now() - started) / 1000;
  const stats = ingestor.stats();
  const sent = end.trades;
  const produced = stats.producedTrades;
  const producedInRun = stats.produced - producedBase;
  log(`sent ${end.stats.packets - base.stats.packets} packets in the run; produced ${producedInRun}`);

  let stored = -1;
  let unique = -1;
  if (sink) {
    const storeDeadline = Date.now() + storeWaitSeconds * 1000;
    const count = async () => {
      const rs = await store.client.query({
        query: 'SELECT count() AS n, uniqExact(security_id, volume) AS u FROM market.ticks',
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: string | number; u: string | number }>();
      return { n: Number(row?.n), u: Number(row?.u) };
    };
    for (;;) {
      await sink.flush();
      const c = await count();
      stored = c.n;
      unique = c.u;
      if (stored >= sent || Date.now() > storeDeadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    log(
      `stored ${stored} rows (${unique} unique) ${stored >= sent ? 'within' : 'NOT within'} ${storeWaitSeconds} s of the end`,
    );
  }

  const result = {
    bench: 'pipeline',
    rate,
    seconds,
    instruments,
    connections,
    sent,
    produced,
    stored,
    lost: sink ? sent - unique : sent - produced,
    duplicates: sink ? stored - unique : 0,
    ticks_per_s: Math.round(producedInRun / elapsed),
    ack_p50_ms: Number(ingestor.latency.percentileMs(0.5).toFixed(2)),
    ack_p99_ms: Number(ingestor.latency.percentileMs(0.99).toFixed(2)),
    sim_skipped: end.stats.skipped,
    buffer_full_events: stats.bufferFullEvents,
  };

  await ingestor.stop();
  await sink?.stop();
  await store.close();
  sim.send({ cmd: 'close' });
  await new Promise((r) => {
    const timer = setTimeout(() => sim.kill('SIGKILL'), 5_000);
    sim.once('exit', () => {
      clearTimeout(timer);
      r(undefined);
    });
  });
  await kafka?.stop();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:pipeline failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

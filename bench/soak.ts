/**
 * npm run bench:soak -- --minutes M [--rate 100000] [--instruments 25000] [--sample-seconds 10]
 *                        [--kafka-on-disk] [--token-lifetime S]
 *
 * The whole live pipeline (simulator in load mode -> ingestor -> Kafka -> sink -> ClickHouse) for M
 * minutes. Samples the RSS and heap of each process (this one, the ingestor; the sink, with where
 * its memory is: V8 heap, Buffers, chDB's own accounting; the simulator; the Kafka JVM), the sink's
 * lag and the pipeline's buffer over time, then checks every trade: lost and duplicated. Memory
 * growth compares each process's peak RSS in the last minute with its peak in the minute from the
 * two-minute mark (a fifth of a shorter run), when warm-up (JIT, pools, caches) is over; the trend
 * (least squares over every sample from that mark) is reported beside it. Progress on stderr; last
 * stdout line is the JSON.
 *
 * With `--token-lifetime S` the simulator's tokens live S seconds (one per account) and the ingestor
 * renews through the TOTP source (soak-renewals.ts judges it): every renewal must be followed by a
 * reconnection of all 5 connections, each connection's gap in the ledger of gaps (market.feed_gaps,
 * as the sink stored it) and shorter than 2 s, and nothing fatal. The JSON then carries
 * token_renewals, reconnects, max_gap_ms, the gaps by cause and `renewal` (each check's verdict);
 * `ok` is false (and the exit code 1) when a check or the lost/duplicate count fails.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type SimStats, type StoredCounts, startPipeline } from './support/pipeline-harness.js';
import { judgeRenewals } from './support/soak-renewals.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '100000' },
    instruments: { type: 'string', default: '25000' },
    'sample-seconds': { type: 'string', default: '10' },
    'kafka-on-disk': { type: 'boolean', default: false },
    'token-lifetime': { type: 'string' },
  },
});

function bounded(name: string, raw: string | undefined, max: number): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max)
    throw new Error(`--${name} must be in (0, ${max}]`);
  return value;
}

const minutes = bounded('minutes', values.minutes, 24 * 60);
const rate = bounded('rate', values.rate, 5_000_000);
const instruments = bounded('instruments', values.instruments, 25_000);
const sampleSeconds = bounded('sample-seconds', values['sample-seconds'], 600);
// At least 40 s: renewals three quarters into a token's life are then 30 s (one TOTP step) apart,
// so no renewal waits for a fresh code past its token's expiry.
const tokenLifetimeS =
  values['token-lifetime'] === undefined
    ? undefined
    : bounded('token-lifetime', values['token-lifetime'], 86_400);
if (tokenLifetimeS !== undefined && tokenLifetimeS < 40)
  throw new Error('--token-lifetime must be at least 40');
const log = (m: string) => process.stderr.write(`bench:soak: ${m}\n`);

/** One field of /proc/<pid>/status (all RSS, or its anonymous part) in MB; 0 when the process is gone. */
function statusMbOf(pid: number | undefined, field: 'VmRSS' | 'RssAnon'): number {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}
const rssMbOf = (pid: number | undefined) => statusMbOf(pid, 'VmRSS');

interface Sample {
  t: number;
  ingestorRssMb: number;
  ingestorHeapMb: number;
  simRssMb: number;
  sinkRssMb: number;
  sinkHeapMb: number;
  sinkHeapTotalMb: number;
  sinkExternalMb: number;
  sinkEngineMb: number;
  sinkAnonMb: number;
  simHeapMb: number;
  kafkaRssMb: number;
  bufferedMb: number;
  produced: number;
  stored: number;
}

async function main(): Promise<void> {
  const pipeline = await startPipeline({
    rate,
    instruments,
    connections: 5,
    workers: 2,
    sink: true,
    kafkaOnDisk: values['kafka-on-disk'],
    tokenLifetimeS,
    log,
  });
  const { ingestor } = pipeline;
  const renewedAt: number[] = [];
  pipeline.credentials?.onChange(() => renewedAt.push(Date.now()));
  await new Promise((r) => setTimeout(r, 3_000));
  const samples: Sample[] = [];
  const totalSeconds = Math.round(minutes * 60);
  const started = performance.now();
  pipeline.resume();
  log(`soaking for ${minutes} min at ${rate} packets/s over ${instruments} instruments`);
  for (let elapsed = 0; elapsed < totalSeconds; ) {
    const step = Math.min(sampleSeconds, totalSeconds - elapsed);
    await new Promise((r) => setTimeout(r, step * 1000));
    elapsed += step;
    const sim = await pipeline.simStats();
    const memory = process.memoryUsage();
    const stats = ingestor.stats();
    const sinkProgress = await pipeline.sinkProgress();
    const sample: Sample = {
      t: elapsed,
      ingestorRssMb: memory.rss / 1e6,
      ingestorHeapMb: memory.heapUsed / 1e6,
      simRssMb: sim.memory.rss / 1e6,
      simHeapMb: sim.memory.heapUsed / 1e6,
      kafkaRssMb: rssMbOf(pipeline.kafkaPid),
      bufferedMb: stats.bufferedBytes / 1e6,
      produced: stats.producedTrades,
      stored: sinkProgress.inserted,
      sinkRssMb: rssMbOf(pipeline.sinkPid),
      sinkHeapMb: sinkProgress.heapUsed / 1e6,
      sinkHeapTotalMb: sinkProgress.heapTotal / 1e6,
      sinkExternalMb: sinkProgress.external / 1e6,
      sinkEngineMb: sinkProgress.engineTracked / 1e6,
      sinkAnonMb: statusMbOf(pipeline.sinkPid, 'RssAnon'),
    };
    samples.push(sample);
    log(
      `t=${elapsed}s rss ingestor=${sample.ingestorRssMb.toFixed(0)}MB sim=${sample.simRssMb.toFixed(0)}MB sink=${sample.sinkRssMb.toFixed(0)}MB (anon ${sample.sinkAnonMb.toFixed(0)} heap ${sample.sinkHeapMb.toFixed(0)}/${sample.sinkHeapTotalMb.toFixed(0)} external ${sample.sinkExternalMb.toFixed(0)} engine ${sample.sinkEngineMb.toFixed(0)}) kafka=${sample.kafkaRssMb.toFixed(0)}MB ` +
        `heap=${sample.ingestorHeapMb.toFixed(0)}MB buffered=${sample.bufferedMb.toFixed(1)}MB produced=${sample.produced} lag=${sample.produced - sample.stored}` +
        (pipeline.credentials ? ` renewals=${renewedAt.length} reconnects=${reconnectsOf(stats)}` : ''),
    );
  }
  pipeline.pause();
  await pipeline.settle(300_000);
  const seconds = (performance.now() - started) / 1000;
  const produced = ingestor.stats().producedTrades;
  const { end, counts } = await finalCounts(pipeline);
  const renewal = pipeline.credentials
    ? await judgeRenewals({ pipeline, renewedAt, connections: 5, log })
    : undefined;

  // Growth of each process's high-water mark: the largest RSS of the minute after warm-up against the
  // largest of the last minute. Maxima over windows, not single samples: the sink's RSS saws up and
  // down with its inserts, fetches and chDB's merges (by 100-150 MB), which would swamp a
  // point-to-point difference; a leak still shows as a higher peak at the end.
  const warmFrom = Math.min(120, totalSeconds / 5);
  const window = Math.min(60, (totalSeconds - warmFrom) / 2);
  const peak = (pick: (s: Sample) => number, from: number, to: number) =>
    Math.max(...samples.filter((s) => s.t >= from && s.t <= to).map(pick));
  const growth = (pick: (s: Sample) => number) =>
    samples.length === 0
      ? 0
      : peak(pick, totalSeconds - window, totalSeconds) - peak(pick, warmFrom, warmFrom + window);
  // The trend beside it: the least-squares line through every sample after warm-up, as its rise over
  // that span. Insensitive to where in the sawtooth a window's samples fell; a leak shows as slope.
  const trend = (pick: (s: Sample) => number) => {
    const warm = samples.filter((s) => s.t >= warmFrom);
    if (warm.length < 2) return 0;
    const meanT = warm.reduce((sum, s) => sum + s.t, 0) / warm.length;
    const meanY = warm.reduce((sum, s) => sum + pick(s), 0) / warm.length;
    let covariance = 0;
    let variance = 0;
    for (const s of warm) {
      covariance += (s.t - meanT) * (pick(s) - meanY);
      variance += (s.t - meanT) ** 2;
    }
    return variance === 0 ? 0 : (covariance / variance) * (totalSeconds - warmFrom);
  };
  const picks = {
    ingestor: (s: Sample) => s.ingestorRssMb,
    simulator: (s: Sample) => s.simRssMb,
    sink: (s: Sample) => s.sinkRssMb,
    kafka: (s: Sample) => s.kafkaRssMb,
  };
  const growths = Object.fromEntries(Object.entries(picks).map(([name, pick]) => [name, growth(pick)]));
  const trends = Object.fromEntries(Object.entries(picks).map(([name, pick]) => [name, trend(pick)]));
  // Against the distinct trades sent: a subscription snapshot repeating a trade already sent (each
  // renewal's resubscription) is one trade; stored twice it is a duplicate.
  const lost = end.distinctTrades - counts.unique;
  const duplicates = counts.rows - counts.unique;
  const result = {
    bench: 'soak',
    ok: lost === 0 && duplicates === 0 && (renewal?.ok ?? true),
    minutes,
    token_lifetime_s: tokenLifetimeS ?? null,
    kafka_log: pipeline.kafkaLog,
    rate,
    instruments,
    sent: end.distinctTrades,
    sent_packets: end.trades,
    produced,
    stored: counts.rows,
    lost,
    duplicates,
    token_renewals: renewedAt.length,
    reconnects: reconnectsOf(ingestor.stats()),
    max_gap_ms: renewal?.maxGapMs ?? null,
    fatal: ingestor.stats().fatal ?? null,
    feed_errors: ingestor.stats().feedErrors,
    repeated_trades_dropped: ingestor.stats().repeatedTrades,
    ...(renewal ? { renewal: renewal.report } : {}),
    ticks_per_s: Math.round(produced / seconds),
    rss_growth_mb: Number(Math.max(...Object.values(growths)).toFixed(1)),
    rss_growth_by_process_mb: Object.fromEntries(
      Object.entries(growths).map(([k, v]) => [k, Number(v.toFixed(1))]),
    ),
    rss_trend_by_process_mb: Object.fromEntries(
      Object.entries(trends).map(([k, v]) => [k, Number(v.toFixed(1))]),
    ),
    max_lag: Math.max(0, ...samples.map((s) => s.produced - s.stored)),
    max_buffered_mb: Number(Math.max(0, ...samples.map((s) => s.bufferedMb)).toFixed(1)),
    samples: samples.map((s) => ({
      t: s.t,
      ingestor_rss_mb: Math.round(s.ingestorRssMb),
      ingestor_heap_mb: Math.round(s.ingestorHeapMb),
      sim_rss_mb: Math.round(s.simRssMb),
      sink_rss_mb: Math.round(s.sinkRssMb),
      sink_heap_mb: Math.round(s.sinkHeapMb),
      sink_heap_total_mb: Math.round(s.sinkHeapTotalMb),
      sink_external_mb: Math.round(s.sinkExternalMb),
      sink_engine_mb: Math.round(s.sinkEngineMb),
      sink_anon_mb: Math.round(s.sinkAnonMb),
      kafka_rss_mb: Math.round(s.kafkaRssMb),
      lag: s.produced - s.stored,
    })),
  };
  await pipeline.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (!result.ok) process.exitCode = 1;
}

/**
 * What the simulator sent and the sink stored, read when they agree: the sink caught up (bounded),
 * and no resubscription (a renewal goes on while the run ends) sent anything between the two reads.
 */
async function finalCounts(
  pipeline: Awaited<ReturnType<typeof startPipeline>>,
): Promise<{ end: SimStats; counts: StoredCounts }> {
  const deadline = Date.now() + 300_000;
  for (let attempt = 1; ; attempt++) {
    const end = await pipeline.simStats();
    while ((await pipeline.insertedTrades()) < end.distinctTrades && Date.now() < deadline) {
      await pipeline.flushSink();
      await new Promise((r) => setTimeout(r, 1_000));
    }
    await pipeline.settle(30_000);
    await pipeline.flushSink();
    const counts = await pipeline.storedTrades();
    const after = await pipeline.simStats();
    if (after.trades === end.trades || attempt === 5 || Date.now() > deadline) return { end: after, counts };
  }
}

/** Reconnects of every connection so far (each socket that had opened and then closed). */
function reconnectsOf(stats: { connections: Array<{ reconnects: number }> }): number {
  return stats.connections.reduce((sum, c) => sum + c.reconnects, 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:soak failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

/**
 * npm run bench:failover -- --scenario crash-restart [--rate 100000] [--instruments 25000]
 *                           [--before 10] [--after 10] [--connections 5] [--workers 2] [--no-wal]
 *
 * The simulator in load mode (own process) -> one feed ingestor (own process, the write-ahead log
 * and the state file on) -> a real local Kafka broker. `crash-restart`: after --before seconds the
 * ingestor is SIGKILLed mid-flow and started again at once on the same log; --after seconds later the
 * load stops, the restarted ingestor stops cleanly, and the trades topic is read back as a reader of
 * the contract reads it (copies by source identity dropped, as the sink does). Other scenarios of
 * issue #28 (handover, leader-kill, leader-stop) need the standby and are not here yet.
 *
 * What the JSON line counts (trades; in load mode each trade adds one lot, so an instrument's volume
 * is its sequence number):
 * - generated: distinct trades the simulator sent, summed over instruments (in load mode it makes
 *   trades only for subscribed instruments: the downtime itself generates none);
 * - read: taken from a socket by an ingestor: everything in Kafka, plus what the killed process's
 *   log holds and Kafka does not (the log is written on receipt, before anything else happens);
 * - in_kafka: distinct trades in the topic; lost: read but not in Kafka; missed: generated and never
 *   read (sent to the killed process's sockets and left unread there);
 * - duplicates: a trade kept twice; raw_copies: records a contract reader drops by their identity;
 * - gap_p99_ms, gap_max_ms: per instrument, the longest time between consecutive trades in Kafka;
 * - takeover_s: from the kill to the first trade the restarted process received;
 * - wal_replayed: frames the restart replayed; ledger_*: the process_stopped gaps it recorded.
 * With --no-wal, what the killed process read and lost cannot be known: lost and read are null.
 * Progress goes to stderr; the last stdout line is the JSON result.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeFrameToRecords } from '@feedpipe/codec';
import { prefixedTopics } from '@feedpipe/contracts';
import { type IngestorStats, readWalStreams } from '@feedpipe/feed-ingestor';
import { readTopic } from '@feedpipe/kafka-client';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import { intFlag } from './support/flags.js';
import { readTradeLedger, type TradeLedger } from './support/trade-ledger.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'crash-restart' },
    rate: { type: 'string' },
    instruments: { type: 'string' },
    before: { type: 'string' },
    after: { type: 'string' },
    connections: { type: 'string' },
    workers: { type: 'string' },
    'no-wal': { type: 'boolean', default: false },
  },
});
if (values.scenario !== 'crash-restart')
  throw new Error(
    `--scenario ${values.scenario}: only crash-restart is implemented (the others need the standby)`,
  );
const rate = intFlag(values.rate, 100_000, 'rate', 1, 1_000_000);
const instruments = intFlag(values.instruments, 25_000, 'instruments', 1, 25_000);
const beforeS = intFlag(values.before, 10, 'before', 1, 600);
const afterS = intFlag(values.after, 10, 'after', 1, 600);
const connections = intFlag(values.connections, 5, 'connections', 1, 5);
const workers = intFlag(values.workers, 2, 'workers', 1, 8);
const withWal = !values['no-wal'];
const log = (m: string) => process.stderr.write(`bench:failover: ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function request<T>(child: ChildProcess, cmd: string, type: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.send({ cmd });
  });
}

/** `argsFile`: the process's arguments as JSON (25,000 ids do not fit a command line). */
async function startIngestor(argsFile: string): Promise<ChildProcess> {
  const child = fork(new URL('./support/ingestor-process.ts', import.meta.url), [argsFile], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`ingestor exited with ${code} before READY`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) resolve();
    });
  });
  return child;
}

const statsOf = async (child: ChildProcess) =>
  (await request<{ stats: IngestorStats }>(child, 'stats', 'stats')).stats;

/** `securityId:volume` of every trade the killed process's log holds (written on receipt). */
function tradesInLog(walDir: string): Set<string> {
  const out = new Set<string>();
  for (const stream of readWalStreams(walDir)) {
    for (const chunk of stream.chunks) {
      const view = new DataView(chunk.pack.buffer, chunk.pack.byteOffset, chunk.pack.byteLength);
      for (let at = 0; at < chunk.pack.byteLength; ) {
        const length = view.getUint32(at, true);
        for (const record of decodeFrameToRecords(chunk.pack.subarray(at + 12, at + 12 + length)))
          if (record.type === 'trade') out.add(`${record.securityId}:${record.volume}`);
        at += 12 + length;
      }
    }
  }
  return out;
}

/** The process_stopped intervals of the ledger of gaps (status topic), epoch ms. */
async function stoppedIntervals(
  brokers: string[],
  topic: string,
): Promise<{ from: number; to: number; rows: number }> {
  const records = await readTopic({ brokers, clientId: 'bench-failover-gaps' }, topic);
  let from = Number.POSITIVE_INFINITY;
  let to = 0;
  let rows = 0;
  for (const r of records) {
    const value = JSON.parse(r.value?.toString('utf8') ?? 'null') as {
      type?: string;
      cause?: string;
      startedAt: number;
      endedAt: number;
    };
    if (value?.type !== 'gap' || value.cause !== 'process_stopped') continue;
    rows += 1;
    from = Math.min(from, value.startedAt / 1000);
    to = Math.max(to, value.endedAt / 1000);
  }
  return { from, to, rows };
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

function lostOf(readBeforeKill: Set<string>, ledger: TradeLedger): number {
  let lost = 0;
  for (const trade of readBeforeKill) {
    const [id, volume] = trade.split(':').map(Number) as [number, number];
    if (!ledger.byInstrument.get(id)?.volumes.has(volume)) lost += 1;
  }
  return lost;
}

async function main(): Promise<void> {
  const work = tempDir('bench-failover');
  const kafkaDir = existsSync('/dev/shm')
    ? mkdtempSync('/dev/shm/feedpipe-bench-failover-')
    : join(work, 'kafka');
  log(`starting a local Kafka broker (${kafkaDir})...`);
  const kafka = await startLocalKafka({
    dataDir: kafkaDir,
    heap: '1g',
    segmentBytes: 64 * 1024 * 1024,
    retentionBytesPerPartition: 256 * 1024 * 1024,
  });
  const sim = fork(
    new URL('./support/sim-process.ts', import.meta.url),
    [String(instruments), String(rate)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  try {
    const ready = (await once(sim, 'message'))[0] as { url: string; ids: number[] };
    const prefix = uniqueName('failover');
    const topics = prefixedTopics(prefix);
    const args = {
      feedUrl: ready.url,
      brokers: kafka.brokers,
      prefix,
      ids: ready.ids.slice(0, instruments).map(String),
      connections,
      workers,
      walDir: withWal ? join(work, 'wal') : undefined,
      stateFile: join(work, 'ingestor-state.json'),
    };
    const argsFile = join(work, 'ingestor-args.json');
    writeFileSync(argsFile, JSON.stringify(args));
    const first = await startIngestor(argsFile);
    sim.send({ cmd: 'resume' });
    log(`${instruments} instruments at ${rate} trades/s; SIGKILL in ${beforeS} s`);
    await sleep(beforeS * 1_000);
    first.kill('SIGKILL');
    const killedAt = Date.now();
    await once(first, 'exit');
    const readBeforeKill = withWal ? tradesInLog(args.walDir as string) : new Set<string>();
    log(`killed; the log holds ${readBeforeKill.size} trades; restarting`);
    const second = await startIngestor(argsFile);
    const replayed = (await statsOf(second)).wal?.replayed;
    await sleep(afterS * 1_000);
    sim.send({ cmd: 'pause' });
    // Until the restarted process has taken in everything sent (its frame count stops moving).
    for (let last = -1, now = 0; now !== last; await sleep(500)) {
      last = now;
      now = (await statsOf(second)).frames;
    }
    second.send({ cmd: 'stop' });
    await once(second, 'exit');

    const sent = (await request<{ sent: Array<[number, number]> }>(sim, 'sent', 'sent')).sent;
    const generated = sent.reduce((n, [, count]) => n + count, 0);
    log('reading the trades topic back...');
    const ledger = await readTradeLedger(kafka.brokers, topics.trades, 300_000);
    const inKafka = [...ledger.byInstrument.values()].reduce((n, t) => n + t.volumes.size, 0);
    const lost = withWal ? lostOf(readBeforeKill, ledger) : null;
    const gaps = [...ledger.byInstrument.values()].map((t) => t.maxGapUs / 1000).sort((a, b) => a - b);
    const firstAfterKill = Math.min(
      ...[...ledger.runs.values()].map((r) => r.firstReceivedAt / 1000).filter((at) => at > killedAt),
    );
    const stopped = await stoppedIntervals(kafka.brokers, topics.status);
    const result = {
      bench: 'failover',
      scenario: 'crash-restart',
      wal: withWal,
      rate,
      instruments,
      generated,
      read: lost === null ? null : inKafka + lost,
      in_kafka: inKafka,
      lost,
      missed: lost === null ? null : generated - inKafka - lost,
      not_in_kafka: generated - inKafka,
      duplicates: ledger.duplicates,
      raw_copies: ledger.copies,
      out_of_order: ledger.outOfOrder,
      gap_p99_ms: Math.round(percentile(gaps, 0.99)),
      gap_max_ms: Math.round(gaps[gaps.length - 1] ?? 0),
      takeover_s: Number(((firstAfterKill - killedAt) / 1000).toFixed(2)),
      wal_replayed: replayed?.frames ?? 0,
      wal_replayed_trades: replayed?.trades ?? 0,
      ledger_stopped_rows: stopped.rows,
      ledger_stopped_ms: stopped.rows > 0 ? Math.round(stopped.to - stopped.from) : 0,
      // The recorded interval starts at or before the kill and ends at or after the restart's first trade.
      ledger_covers_downtime:
        stopped.rows > 0 && stopped.from <= killedAt && stopped.to >= firstAfterKill - 1_000,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    sim.send({ cmd: 'close' });
    await once(sim, 'exit');
    await kafka.stop();
    rmSync(kafkaDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:failover failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

/**
 * npm run bench:failover -- --scenario crash-restart|handover|leader-kill|leader-stop
 *                           [--rate 100000] [--instruments 25000] [--connections 5] [--workers 2]
 *                           [--before 10] [--after 10] [--freeze 20] [--session-ms 3000] [--no-wal]
 *                           [--socket-thread on|off] [--simulator-nice -10]
 *
 * The simulator in load mode (own process) -> feed ingestors (own processes, the write-ahead log
 * and the state file on) -> a real local Kafka broker. One scenario per run:
 * - crash-restart: one ingestor, SIGKILLed after --before seconds and started again at once on the
 *   same log;
 * - handover: a leader and a standby (INGESTOR_LEADERSHIP=kafka); after --before seconds the leader
 *   is stopped as SIGTERM stops it, and hands its connections over one by one (with 4 connections
 *   the client id keeps a spare slot: make-before-break; with 5, break-before-make);
 * - leader-kill: the leader SIGKILLed; the standby takes over after the session and replays the
 *   dead leader's log (same host);
 * - leader-stop: the leader frozen (SIGSTOP) for --freeze seconds; the standby takes over; the
 *   leader wakes (SIGCONT) fenced and exits.
 * --after seconds later the load stops, the process that leads stops cleanly, and the trades topic
 * is read back as a reader of the contract reads it (copies by source identity dropped, as the sink
 * does).
 *
 * What the JSON line counts (trades; in load mode each trade adds one lot, so an instrument's volume
 * is its sequence number):
 * - generated: distinct trades the simulator sent, summed over instruments (in load mode it makes
 *   trades only for subscribed instruments: time nobody is subscribed generates none);
 * - read: taken from a socket by an ingestor: everything in Kafka, plus what the fallen process's
 *   log holds and Kafka does not (the log is written on receipt, before anything else happens);
 * - in_kafka: distinct trades in the topic; lost: read but not in Kafka; missed: generated and never
 *   read (sent to a dead or frozen process's sockets and left unread there);
 * - duplicates: a trade kept twice; raw_copies: records a contract reader drops by their identity;
 * - gap_p99_ms, gap_max_ms: per instrument, the time no process had it live, from the ledger of gaps
 *   (the scenario's cause: process_stopped, handover or failover); trade_gap_p99_ms,
 *   trade_gap_max_ms: the longest interval between an instrument's consecutive trades in Kafka
 *   (its ordinary spacing included: at 100,000 trades/s over 25,000 instruments, 250 ms);
 * - takeover_s: from the kill, freeze or stop to the first trade the new holder received
 *   (handover: to the old leader's exit, all connections handed over);
 * - wal_replayed: frames the new holder replayed from the fallen process's log.
 * With --no-wal, what the killed process read and lost cannot be known: lost and read are null.
 * The simulator stands for the service, which is another machine: how fast it answers a
 * subscription must not wait for a core our processes hold. So it runs ahead of them, at
 * --simulator-nice (default -10, as bench:quotes runs its simulator; needs root or CAP_SYS_NICE:
 * where refused, `simulator_nice_refused` says why and it runs at 0). --simulator-nice 0 shows what
 * the shared machine adds to the handover's gap.
 * --socket-thread off keeps the ingestors' feed sockets on their main threads (the default: on a
 * thread of their own), to compare.
 * Progress goes to stderr; the last stdout line is the JSON result.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { prefixedTopics } from '@feedpipe/contracts';
import { type IngestorStats, tradesInWal } from '@feedpipe/feed-ingestor';
import { readTopic } from '@feedpipe/kafka-client';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import { intFlag } from './support/flags.js';
import { renice } from './support/priority.js';
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
    freeze: { type: 'string' },
    'session-ms': { type: 'string' },
    'no-wal': { type: 'boolean', default: false },
    'socket-thread': { type: 'string', default: 'on' },
    'simulator-nice': { type: 'string' },
  },
});
const SCENARIOS = ['crash-restart', 'handover', 'leader-kill', 'leader-stop'] as const;
type Scenario = (typeof SCENARIOS)[number];
const scenario = values.scenario as Scenario;
if (!SCENARIOS.includes(scenario)) throw new Error(`--scenario must be one of ${SCENARIOS.join(', ')}`);
const rate = intFlag(values.rate, 100_000, 'rate', 1, 1_000_000);
const instruments = intFlag(values.instruments, 25_000, 'instruments', 1, 25_000);
const beforeS = intFlag(values.before, 10, 'before', 1, 600);
const afterS = intFlag(values.after, 10, 'after', 1, 600);
const connections = intFlag(values.connections, 5, 'connections', 1, 5);
const workers = intFlag(values.workers, 2, 'workers', 1, 8);
const freezeS = intFlag(values.freeze, 20, 'freeze', 1, 600);
const sessionMs = intFlag(values['session-ms'], 3_000, 'session-ms', 1_000, 60_000);
const withWal = !values['no-wal'];
if (values['socket-thread'] !== 'on' && values['socket-thread'] !== 'off')
  throw new Error('--socket-thread must be on or off');
const socketThread = values['socket-thread'] === 'on';
const simulatorNice = intFlag(values['simulator-nice'], -10, 'simulator-nice', -20, 19);
if (!withWal && scenario !== 'crash-restart') throw new Error('--no-wal is for crash-restart only');
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

/** The ledger's gap records of `cause` (status topic): their span and each one's length, ms. */
async function ledgerGaps(
  brokers: string[],
  topic: string,
  cause: string,
): Promise<{ from: number; to: number; rows: number; lengths: number[] }> {
  const records = await readTopic({ brokers, clientId: 'bench-failover-gaps' }, topic);
  let from = Number.POSITIVE_INFINITY;
  let to = 0;
  const lengths: number[] = [];
  for (const r of records) {
    const value = JSON.parse(r.value?.toString('utf8') ?? 'null') as {
      type?: string;
      cause?: string;
      startedAt: number;
      endedAt: number;
    };
    if (value?.type !== 'gap' || value.cause !== cause) continue;
    from = Math.min(from, value.startedAt / 1000);
    to = Math.max(to, value.endedAt / 1000);
    lengths.push((value.endedAt - value.startedAt) / 1000);
  }
  return { from, to, rows: lengths.length, lengths: lengths.sort((a, b) => a - b) };
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

interface Setup {
  sim: ChildProcess;
  brokers: string[];
  work: string;
  topics: ReturnType<typeof prefixedTopics>;
  /** The arguments file of ingestor `name` (its own log; with leadership, the others' as peers). */
  argsFile: (name: 'a' | 'b', leadership: boolean) => string;
  walOf: (name: 'a' | 'b') => string | undefined;
}

/** What a scenario hands to the count: the process holding the feed at the end, and its events. */
interface Outcome {
  holder: ChildProcess;
  /** The kill, freeze or stop, epoch ms. */
  eventAt: number;
  /** Trades the fallen process had read (its log), for `lost`. */
  readByFallen: Set<string>;
  /** When the handover ended (the old leader exited), epoch ms; undefined for other scenarios. */
  handedOverAt?: number;
}

async function settleAndStop(sim: ChildProcess, holder: ChildProcess): Promise<void> {
  sim.send({ cmd: 'pause' });
  // Until the holder has taken in everything sent (its frame count stops moving).
  for (let last = -1, now = 0; now !== last; await sleep(500)) {
    last = now;
    now = (await statsOf(holder)).frames;
  }
  holder.send({ cmd: 'stop' });
  await once(holder, 'exit');
}

async function waitRole(child: ChildProcess, role: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await statsOf(child)).role !== role) {
    if (Date.now() > deadline) throw new Error(`no ${role} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function crashRestart(setup: Setup): Promise<Outcome> {
  const argsFile = setup.argsFile('a', false);
  const first = await startIngestor(argsFile);
  setup.sim.send({ cmd: 'resume' });
  resumedAt = Date.now();
  log(`SIGKILL in ${beforeS} s`);
  await sleep(beforeS * 1_000);
  first.kill('SIGKILL');
  const eventAt = Date.now();
  await once(first, 'exit');
  const walDir = setup.walOf('a');
  const readByFallen = walDir ? tradesInWal(walDir) : new Set<string>();
  log(`killed; the log holds ${readByFallen.size} trades; restarting`);
  const holder = await startIngestor(argsFile);
  return { holder, eventAt, readByFallen };
}

/** A leader (a) and a standby (b), the load running. */
async function leaderAndStandby(setup: Setup): Promise<{ a: ChildProcess; b: ChildProcess }> {
  const a = await startIngestor(setup.argsFile('a', true));
  await waitRole(a, 'leader');
  const b = await startIngestor(setup.argsFile('b', true));
  await waitRole(b, 'standby');
  setup.sim.send({ cmd: 'resume' });
  resumedAt = Date.now();
  return { a, b };
}

async function withStandby(setup: Setup): Promise<Outcome> {
  const { a, b } = await leaderAndStandby(setup);
  log(`${scenario} in ${beforeS} s`);
  await sleep(beforeS * 1_000);
  const walA = setup.walOf('a') as string;
  const eventAt = Date.now();
  if (scenario === 'handover') {
    a.send({ cmd: 'stop' });
    await once(a, 'exit');
    const handedOverAt = Date.now();
    log(`handed over in ${handedOverAt - eventAt} ms`);
    return { holder: b, eventAt, readByFallen: new Set(), handedOverAt };
  }
  a.kill(scenario === 'leader-kill' ? 'SIGKILL' : 'SIGSTOP');
  // Read before the standby replays (and removes) it: the fallen leader cannot write any more.
  const readByFallen = tradesInWal(walA);
  log(`${scenario === 'leader-kill' ? 'killed' : 'frozen'}; its log holds ${readByFallen.size} trades`);
  await waitRole(b, 'leader');
  if (scenario === 'leader-stop') {
    await sleep(Math.max(0, eventAt + freezeS * 1_000 - Date.now()));
    a.kill('SIGCONT');
    const [code] = (await once(a, 'exit')) as [number | null];
    log(`the frozen leader woke and exited with ${code} (75: fenced)`);
  } else if (a.exitCode === null && a.signalCode === null) {
    await once(a, 'exit');
  }
  return { holder: b, eventAt, readByFallen };
}

/** When the load began (epoch ms): trade gaps count from a second after it. */
let resumedAt = 0;

const CAUSE: Record<Scenario, string> = {
  'crash-restart': 'process_stopped',
  handover: 'handover',
  'leader-kill': 'failover',
  'leader-stop': 'failover',
};

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
    const simulator = renice(sim.pid ?? 0, simulatorNice);
    log(
      `simulator at nice ${simulator.nice}${simulator.refused ? ` (${simulatorNice} refused: ${simulator.refused})` : ''}`,
    );
    const prefix = uniqueName('failover');
    const topics = prefixedTopics(prefix);
    const walOf = (name: 'a' | 'b') => (withWal ? join(work, `wal-${name}`) : undefined);
    const leadership = {
      groupId: `${prefix}-leader`,
      topic: `${prefix}.control`,
      sessionTimeoutMs: sessionMs,
    };
    const setup: Setup = {
      sim,
      brokers: kafka.brokers,
      work,
      topics,
      walOf,
      argsFile: (name, withLeadership) => {
        const file = join(work, `ingestor-${name}.json`);
        const other = name === 'a' ? 'b' : 'a';
        const args = {
          feedUrl: ready.url,
          brokers: kafka.brokers,
          prefix,
          ids: ready.ids.slice(0, instruments).map(String),
          connections,
          workers,
          socketThread,
          walDir: walOf(name),
          stateFile: join(work, `ingestor-${name}-state.json`),
          ...(withLeadership ? { leadership: { ...leadership, peerWalDirs: [walOf(other)] } } : {}),
        };
        writeFileSync(file, JSON.stringify(args));
        return file;
      },
    };
    log(
      `${instruments} instruments at ${rate} trades/s over ${connections} connections, scenario ${scenario}`,
    );
    const outcome = scenario === 'crash-restart' ? await crashRestart(setup) : await withStandby(setup);
    await sleep(afterS * 1_000);
    // Read after the load ran on: a standby's replay of the fallen leader's log runs after it leads.
    const replayed = (await statsOf(outcome.holder)).wal?.replayed;
    await settleAndStop(sim, outcome.holder);

    const sent = (await request<{ sent: Array<[number, number]> }>(sim, 'sent', 'sent')).sent;
    const generated = sent.reduce((n, [, count]) => n + count, 0);
    log('reading the trades topic back...');
    const ledger = await readTradeLedger(kafka.brokers, topics.trades, 300_000, (resumedAt + 1_000) * 1_000);
    const inKafka = [...ledger.byInstrument.values()].reduce((n, t) => n + t.volumes.size, 0);
    const lost = withWal ? lostOf(outcome.readByFallen, ledger) : null;
    const tradeGaps = [...ledger.byInstrument.values()].map((t) => t.maxGapUs / 1000).sort((a, b) => a - b);
    const firstAfter = Math.min(
      ...[...ledger.runs.values()].map((r) => r.firstReceivedAt / 1000).filter((at) => at > outcome.eventAt),
    );
    const gaps = await ledgerGaps(kafka.brokers, topics.status, CAUSE[scenario]);
    const takeoverAt = outcome.handedOverAt ?? firstAfter;
    const result = {
      bench: 'failover',
      scenario,
      wal: withWal,
      socket_thread: socketThread,
      simulator_nice: simulator.nice,
      ...(simulator.refused ? { simulator_nice_refused: simulator.refused } : {}),
      rate,
      instruments,
      connections,
      generated,
      read: lost === null ? null : inKafka + lost,
      in_kafka: inKafka,
      lost,
      missed: lost === null ? null : generated - inKafka - lost,
      not_in_kafka: generated - inKafka,
      duplicates: ledger.duplicates,
      raw_copies: ledger.copies,
      out_of_order: ledger.outOfOrder,
      gap_p99_ms: Math.round(percentile(gaps.lengths, 0.99)),
      gap_max_ms: Math.round(gaps.lengths[gaps.lengths.length - 1] ?? 0),
      trade_gap_p99_ms: Math.round(percentile(tradeGaps, 0.99)),
      trade_gap_max_ms: Math.round(tradeGaps[tradeGaps.length - 1] ?? 0),
      takeover_s: Number(((takeoverAt - outcome.eventAt) / 1000).toFixed(2)),
      wal_replayed: replayed?.frames ?? 0,
      wal_replayed_trades: replayed?.trades ?? 0,
      ledger_cause: CAUSE[scenario],
      ledger_rows: gaps.rows,
      // The recorded gaps start at or before the event and end at or after the first trade after it.
      ledger_covers_downtime:
        scenario === 'handover'
          ? gaps.rows > 0
          : gaps.rows > 0 && gaps.from <= outcome.eventAt && gaps.to >= firstAfter - 1_000,
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

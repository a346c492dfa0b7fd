/**
 * A leader and a standby of the same client id, each in a process of its own, against the
 * simulator and the real broker: the leader SIGKILLed, or frozen with SIGSTOP and woken after the
 * standby took over. Read back as a reader of the contract reads the trades topic: every trade the
 * fallen leader read is there once, in order per instrument; a woken leader sends nothing and
 * exits; the ledger of gaps holds the failover.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import {
  isSourceCopy,
  prefixedTopics,
  readSourceIdentity,
  SOURCE_HEADER,
  type SourceMark,
} from '@feedpipe/contracts';
import { readTopic, type TopicRecord, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type IngestorStats, tradesInWal } from '../src/index.js';
import { inxIds } from './fixtures/feed-fixtures.js';
import { checkQuantities } from './fixtures/quantity-check.js';

const brokers = inject('kafkaBrokers');
const CHILD = new URL('./fixtures/wal-ingestor-child.ts', import.meta.url);
let server: FeedServer | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await server?.close().catch(() => undefined);
  server = undefined;
});

interface Child {
  process: ChildProcess;
  /** Everything the child printed on stdout. */
  out: () => string;
}

async function startChild(args: Record<string, unknown>): Promise<Child> {
  const child = fork(CHILD, [JSON.stringify(args)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await waitFor(() => out.includes('READY') || child.exitCode !== null, 60_000, 'READY');
  if (!out.includes('READY')) throw new Error(`ingestor child exited with ${child.exitCode} before READY`);
  return { process: child, out: () => out };
}

function statsOf(child: Child): Promise<IngestorStats> {
  return new Promise((resolve) => {
    const onMessage = (m: { type: string; stats: IngestorStats }) => {
      if (m.type !== 'stats') return;
      child.process.off('message', onMessage);
      resolve(m.stats);
    };
    child.process.on('message', onMessage);
    child.process.send({ cmd: 'stats' });
  });
}

interface TopicTrades {
  kept: string[];
  outOfOrder: number;
  /**
   * Per partition, records of `run` that a reader keeps (not copies by source identity) and that
   * come after the first record of another run.
   */
  runAfterOthers: (run: number) => number;
}

function readTrades(records: readonly TopicRecord[]): TopicTrades {
  const marks = new Map<number, Map<number, SourceMark>>();
  const lastVolume = new Map<number, number>();
  const runs = new Map<number, number[]>();
  const kept: string[] = [];
  let outOfOrder = 0;
  for (const r of records) {
    const header = r.headers[SOURCE_HEADER];
    let partitionMarks = marks.get(r.partition);
    if (!partitionMarks) {
      partitionMarks = new Map();
      marks.set(r.partition, partitionMarks);
    }
    if (isSourceCopy(partitionMarks, header)) continue;
    const list = runs.get(r.partition) ?? [];
    list.push(header ? (readSourceIdentity(header)?.run ?? -1) : -1);
    runs.set(r.partition, list);
    const id = r.value.securityId as number;
    const volume = r.value.volume as number;
    if (volume <= (lastVolume.get(id) ?? -1)) outOfOrder += 1;
    lastVolume.set(id, volume);
    kept.push(`${id}:${volume}`);
  }
  const runAfterOthers = (run: number) => {
    let n = 0;
    for (const list of runs.values()) {
      const firstOther = list.findIndex((r) => r !== run);
      if (firstOther >= 0) n += list.slice(firstOther).filter((r) => r === run).length;
    }
    return n;
  };
  return { kept, outOfOrder, runAfterOthers };
}

async function ledgerGaps(prefix: string, cause: string): Promise<number> {
  const records = await readTopic(brokers, prefixedTopics(prefix).status);
  return records.filter((r) => r.value.type === 'gap' && r.value.cause === cause).length;
}

/** How long each of the ledger's gaps of `cause` lasted, ms. */
async function gapLengthsMs(prefix: string, cause: string): Promise<number[]> {
  const records = await readTopic(brokers, prefixedTopics(prefix).status);
  return records
    .filter((r) => r.value.type === 'gap' && r.value.cause === cause)
    .map((r) => ((r.value.endedAt as number) - (r.value.startedAt as number)) / 1000);
}

async function leaderAndStandby(seed: number, connections = 2) {
  const model = new MarketModel({ seed, instruments: 600 });
  server = await startFeedServer({ model, port: 0, load: { packetsPerSecond: 3_000, tickIntervalMs: 5 } });
  const ids = inxIds(model, 200);
  const prefix = uniqueName('failover');
  const dir = tempDir('failover');
  const walA = join(dir, 'wal-a');
  const walB = join(dir, 'wal-b');
  const leadership = { groupId: uniqueName('leader'), topic: uniqueName('control'), sessionTimeoutMs: 3_000 };
  const common = { feedUrl: server.url, brokers, prefix, ids, connections };
  const a = await startChild({ ...common, walDir: walA, leadership: { ...leadership, peerWalDirs: [walB] } });
  await waitFor(async () => (await statsOf(a)).role === 'leader', 30_000, 'a to lead');
  const b = await startChild({ ...common, walDir: walB, leadership: { ...leadership, peerWalDirs: [walA] } });
  await waitFor(async () => (await statsOf(a)).producedTrades > 2_000, 30_000, 'a to produce');
  // The standby joined without taking the feed: the holder keeps it.
  await waitFor(async () => (await statsOf(b)).role === 'standby', 30_000, 'b to join as standby');
  expect((await statsOf(b)).frames).toBe(0);
  expect((await statsOf(a)).role).toBe('leader');
  return { a, b, walA, prefix, ids, model };
}

const heldTrades = (stats: IngestorStats) => stats.connections.reduce((n, c) => n + c.trade, 0);

/** Stops the feed, lets `child` deliver what it read, stops it cleanly. */
async function settleAndStop(child: Child): Promise<void> {
  server?.pause();
  let frames = -1;
  await waitFor(
    async () => {
      const now = (await statsOf(child)).frames;
      const same = now === frames;
      frames = now;
      return same;
    },
    20_000,
    'the last frames',
    500,
  );
  child.process.send({ cmd: 'stop' });
  await once(child.process, 'exit');
}

describe('a standby ingestor', () => {
  it('takes over when the leader is SIGKILLed: every trade the leader read is in Kafka once', async () => {
    const { a, b, walA, prefix, model } = await leaderAndStandby(41);
    // A subscription the leader took on while running: the standby subscribes it too when it leads.
    const extra = inxIds(model, 201).at(-1) as string;
    a.process.send({ cmd: 'subscribe', ids: [extra] });
    await waitFor(async () => heldTrades(await statsOf(a)) === 201, 20_000, 'the extra subscription');
    await new Promise((resolve) => setTimeout(resolve, 500));
    a.process.kill('SIGKILL');
    await once(a.process, 'exit');
    const readByA = tradesInWal(walA);
    expect(readByA.size).toBeGreaterThan(0);
    await waitFor(async () => (await statsOf(b)).role === 'leader', 30_000, 'b to lead');
    await waitFor(async () => (await statsOf(b)).producedTrades > 1_000, 30_000, 'b to produce');
    expect((await statsOf(b)).wal?.replayed.streams).toBeGreaterThan(0);
    expect(heldTrades(await statsOf(b))).toBe(201);
    await settleAndStop(b);

    const records = await readTopic(brokers, prefixedTopics(prefix).trades);
    const trades = readTrades(records);
    const kept = new Set(trades.kept);
    expect([...readByA].filter((t) => !kept.has(t))).toEqual([]);
    expect(trades.kept.length - kept.size).toBe(0);
    expect(trades.outOfOrder).toBe(0);
    expect(await ledgerGaps(prefix, 'failover')).toBeGreaterThan(0);
    // The replayed log and the standby's first trades: quantities null or exact, never wrong.
    const quantities = checkQuantities(records);
    expect(quantities.wrong).toEqual([]);
    expect(quantities.unknown).toBeGreaterThan(0);
  }, 150_000);

  it('takes over from a frozen leader, which wakes fenced: it sends nothing more and exits 75', async () => {
    const { a, b, prefix } = await leaderAndStandby(42);
    const aRun = (await statsOf(a)).sourceRun;
    a.process.kill('SIGSTOP');
    await waitFor(async () => (await statsOf(b)).role === 'leader', 30_000, 'b to lead');
    await waitFor(async () => (await statsOf(b)).producedTrades > 1_000, 30_000, 'b to produce');
    a.process.kill('SIGCONT');
    const [code] = (await once(a.process, 'exit')) as [number | null];
    expect(code).toBe(75);
    const fenced = JSON.parse(a.out().split('FENCED ')[1]?.split('\n')[0] ?? '{}') as IngestorStats;
    expect(fenced.role).toBe('fenced');
    await settleAndStop(b);

    const trades = readTrades(await readTopic(brokers, prefixedTopics(prefix).trades));
    // Nothing new of the old leader's run after the new leader's first record, on any partition:
    // its unacknowledged chunks came back through the new leader's replay, ahead of its own. One
    // chunk a partition that the old leader had already handed to its Kafka client when it froze
    // may still be appended when it wakes (the fence is checked before the send, not at the socket
    // write); it carries the identities the replay produced, so a reader drops it as copies.
    expect(trades.runAfterOthers(aRun)).toBe(0);
    const kept = new Set(trades.kept);
    expect(trades.kept.length - kept.size).toBe(0);
    expect(trades.outOfOrder).toBe(0);
    expect(await ledgerGaps(prefix, 'failover')).toBeGreaterThan(0);
  }, 150_000);

  for (const [mode, connections] of [
    ['a spare connection slot (make-before-break)', 2],
    ['no spare slot (the successor evicts each connection, 805)', 5],
  ] as const) {
    it(`takes the connections over one by one when the leader stops, with ${mode}: every trade once`, async () => {
      const { a, b, prefix, ids } = await leaderAndStandby(43 + connections, connections);
      a.process.send({ cmd: 'stop' });
      const [code] = (await once(a.process, 'exit')) as [number | null];
      expect(code).toBe(0);
      await waitFor(async () => (await statsOf(b)).role === 'leader', 30_000, 'b to lead');
      const handedOver = await statsOf(b);
      // The successor opened every connection before it led: nothing was left to replay or reopen.
      expect(handedOver.connections.filter((c) => c.state === 'open')).toHaveLength(connections);
      expect(handedOver.wal?.replayed.chunks).toBe(0);
      await waitFor(
        async () => (await statsOf(b)).producedTrades > handedOver.producedTrades + 500,
        30_000,
        'b to produce',
      );
      await settleAndStop(b);

      const records = await readTopic(brokers, prefixedTopics(prefix).trades);
      const trades = readTrades(records);
      const kept = new Set(trades.kept);
      expect(trades.kept.length - kept.size).toBe(0);
      expect(trades.outOfOrder).toBe(0);
      // Every trade the simulator sent to either process is in Kafka once.
      const sent = ids.reduce((n, id) => n + (server?.sentFor(Number(id)).distinctTrade ?? 0), 0);
      expect(kept.size).toBe(sent);
      expect(await ledgerGaps(prefix, 'handover')).toBe(ids.length);
      // Make-before-break leaves no instrument unlive; with an 805 eviction each one may be, for the
      // successor's subscription round trip (when the leader hears its 805 first).
      const lengths = await gapLengthsMs(prefix, 'handover');
      if (connections < 5) expect(lengths.every((ms) => ms === 0)).toBe(true);
      else expect(lengths.every((ms) => ms >= 0 && ms < 30_000)).toBe(true);
      expect(await ledgerGaps(prefix, 'failover')).toBe(0);
      // The cut carried the leader's quantity bases: the successor's first trade of an instrument
      // the leader had produced is reckoned from the leader's last (known, and exact).
      const quantities = checkQuantities(records);
      expect(quantities.wrong).toEqual([]);
      const successorFirsts = [...quantities.firstOfRun.values()]
        .filter((firsts) => firsts.size === 2)
        .map((firsts) => [...firsts.values()][1]);
      expect(successorFirsts.length).toBeGreaterThan(0);
      expect(successorFirsts.filter((q) => q === null)).toEqual([]);
    }, 150_000);
  }
});

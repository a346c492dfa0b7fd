/**
 * The faults bench:cluster and the cluster test inflict on a running pipeline (cluster-pipeline.ts).
 * Each runs to its end (a killed broker is back, a stopped one continued, a killed sink group
 * restarted) and says when it struck and how long its effects may last, for recovery.ts.
 *
 * - leader-kill: SIGKILL the broker leading the busiest partitions of the trades topic (most
 *   records in the last seconds), start it again after `downMs`.
 * - broker-stop: SIGSTOP that broker for `stopMs` (hung: connections open, nothing answered), SIGCONT.
 * - broker-loss: SIGKILL it and delete its data: gone for good (replication 3, min ISR 2: writes go on).
 * - sink-kill: a member joins the sink group (a rebalance during inserts), the group's process is
 *   SIGKILLed right after an insert and before its commit, started again, and a member leaves.
 * - rolling-restart: every broker in turn, a controlled restart each, the next once all replicas
 *   are back in sync.
 */
import { KafkaAdmin } from '@feedpipe/kafka-client';
import type { ClusterPipeline } from './cluster-pipeline.js';

export const FAULTS = ['leader-kill', 'broker-stop', 'broker-loss', 'sink-kill', 'rolling-restart'] as const;
export type FaultName = (typeof FAULTS)[number];

export interface FaultTiming {
  /** How long a killed leader stays down. */
  downMs: number;
  /** How long a broker stays stopped. */
  stopMs: number;
  /** How long effects may outlast the fault's last step (the window recovery is read in). */
  settleMs: number;
}

export interface FaultOutcome {
  fault: FaultName;
  /** When it struck (ms since the epoch). */
  at: number;
  /** Until when its effects count. */
  windowEnd: number;
  /** The broker it struck (broker faults). */
  node?: number;
  /** Leaders of the trades topic's partitions before and after the strike (broker faults). */
  leadersBefore?: number[];
  leadersAfter?: number[];
  /** Seconds from the strike until the struck broker led no partition (null: it still did). */
  leadersMovedSeconds?: number | null;
  /** Seconds from the strike until every replica was in sync again (null: never expected). */
  inSyncSeconds: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The broker that leads the partitions of `topic` that grew most over `sampleMs`. */
async function busiestLeader(p: ClusterPipeline, sampleMs: number): Promise<number> {
  const admin = new KafkaAdmin({ brokers: p.cluster.brokers, clientId: 'cluster-faults' });
  try {
    const first = await admin.topicOffsets(p.tradesTopic);
    await sleep(sampleMs);
    const second = await admin.topicOffsets(p.tradesTopic);
    const growth = second.map((o, i) => ({ partition: o.partition, grew: o.high - (first[i]?.high ?? 0n) }));
    const states = await p.cluster.partitionStates([p.tradesTopic]);
    const byLeader = new Map<number, bigint>();
    for (const g of growth) {
      const leader = states.find((s) => s.partition === g.partition)?.leader ?? -1;
      if (leader >= 0) byLeader.set(leader, (byLeader.get(leader) ?? 0n) + g.grew);
    }
    let best = p.cluster.nodes[0]?.id ?? 1;
    let most = -1n;
    for (const [leader, grew] of byLeader) {
      if (grew > most) {
        best = leader;
        most = grew;
      }
    }
    return best;
  } finally {
    await admin.close();
  }
}

async function leaders(p: ClusterPipeline): Promise<number[]> {
  const states = await p.cluster.partitionStates([p.tradesTopic]).catch(() => []);
  return states.sort((a, b) => a.partition - b.partition).map((s) => s.leader);
}

/**
 * Polls until broker `id` leads no partition of the trades topic (the cluster fenced it and moved
 * its leaderships) or `deadline`; seconds since `at`, or null when it still leads at the deadline.
 */
async function leadersMoved(
  p: ClusterPipeline,
  id: number,
  at: number,
  deadline: number,
): Promise<number | null> {
  while (Date.now() < deadline) {
    const now = await leaders(p);
    if (now.length > 0 && !now.includes(id)) return Math.round((Date.now() - at) / 100) / 10;
    await sleep(250);
  }
  return null;
}

async function inSyncAfter(p: ClusterPipeline, at: number): Promise<number> {
  await p.cluster.waitForInSync(p.topics, 300_000);
  return Math.round((Date.now() - at) / 100) / 10;
}

async function brokerFault(
  p: ClusterPipeline,
  fault: 'leader-kill' | 'broker-stop' | 'broker-loss',
  timing: FaultTiming,
  log: (m: string) => void,
): Promise<FaultOutcome> {
  const id = await busiestLeader(p, 2_000);
  const node = p.cluster.node(id);
  const leadersBefore = await leaders(p);
  const at = Date.now();
  let leadersMovedSeconds: number | null;
  if (fault === 'leader-kill') {
    log(`SIGKILL broker ${id} (leads the busiest partitions); back in ${timing.downMs} ms`);
    await node.kill();
    leadersMovedSeconds = await leadersMoved(p, id, at, at + timing.downMs);
    await sleep(at + timing.downMs - Date.now());
  } else if (fault === 'broker-stop') {
    log(`SIGSTOP broker ${id} for ${timing.stopMs} ms`);
    node.pause();
    leadersMovedSeconds = await leadersMoved(p, id, at, at + timing.stopMs);
    await sleep(at + timing.stopMs - Date.now());
  } else {
    log(`broker ${id} lost for good (SIGKILL, data deleted)`);
    await node.remove();
    // No deadline of the fault itself: wait for the cluster to move the leaderships (bounded).
    leadersMovedSeconds = await leadersMoved(p, id, at, at + 120_000);
    await sleep(timing.settleMs);
  }
  const leadersAfter = await leaders(p);
  if (fault === 'leader-kill') await node.start();
  if (fault === 'broker-stop') node.resume();
  const windowEnd = Date.now() + timing.settleMs;
  const inSyncSeconds = fault === 'broker-loss' ? null : await inSyncAfter(p, at);
  log(
    `broker ${id} fault over; leaders ${leadersBefore.join(',')} -> ${leadersAfter.join(',')} (moved after ${leadersMovedSeconds} s)`,
  );
  return { fault, at, windowEnd, node: id, leadersBefore, leadersAfter, leadersMovedSeconds, inSyncSeconds };
}

async function sinkKill(
  p: ClusterPipeline,
  timing: FaultTiming,
  log: (m: string) => void,
): Promise<FaultOutcome> {
  log('a sink member joins (rebalance during inserts)');
  await p.sink('add-member', 'member-added');
  await sleep(3_000);
  const at = Date.now();
  log('the sink group is SIGKILLed right after an insert, before its commit');
  await p.killSinkMidBatch(60_000);
  await p.restartSink();
  log('the sink group is back; a member leaves (rebalance during inserts)');
  await sleep(3_000);
  await p.sink('stop-member', 'member-stopped');
  return { fault: 'sink-kill', at, windowEnd: Date.now() + timing.settleMs, inSyncSeconds: null };
}

async function rollingRestart(
  p: ClusterPipeline,
  timing: FaultTiming,
  log: (m: string) => void,
): Promise<FaultOutcome> {
  const at = Date.now();
  for (const node of p.cluster.nodes) {
    if (node.state !== 'running') continue;
    log(`rolling restart: broker ${node.id}`);
    await node.restart();
    await p.cluster.waitForInSync(p.topics, 300_000);
  }
  return {
    fault: 'rolling-restart',
    at,
    windowEnd: Date.now() + timing.settleMs,
    inSyncSeconds: Math.round((Date.now() - at) / 100) / 10,
  };
}

export function runFault(
  p: ClusterPipeline,
  fault: FaultName,
  timing: FaultTiming,
  log: (m: string) => void,
): Promise<FaultOutcome> {
  switch (fault) {
    case 'sink-kill':
      return sinkKill(p, timing, log);
    case 'rolling-restart':
      return rollingRestart(p, timing, log);
    default:
      return brokerFault(p, fault, timing, log);
  }
}

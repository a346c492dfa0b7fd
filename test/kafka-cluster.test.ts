/**
 * The pipeline on a real 3-broker Kafka cluster (KRaft, replication 3, min ISR 2) through every
 * fault of bench:cluster in a shorter form, one after another on one cluster (starting three JVMs
 * is the slow part): a crash of the busiest partitions' leader and its restart, a hung broker, the
 * sink group killed between an insert and its commit while members join and leave, a rolling
 * restart of every broker, and last a broker lost for good. Then everything the simulator sent is
 * counted in ClickHouse: none lost, none twice, and every instrument's sequence in one partition
 * and in Kafka offset order.
 *
 * Its own cluster, so the shared broker of the other tests is never disturbed. No assertion on
 * timing: recovery times are printed (bench:cluster reports them).
 */
import { describe, expect, it } from 'vitest';
import { FAULTS, type FaultOutcome, runFault } from '../bench/support/cluster-faults.js';
import { startClusterPipeline } from '../bench/support/cluster-pipeline.js';
import { recoveryAfter } from '../bench/support/recovery.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`kafka-cluster test: ${m}\n`);

describe('the pipeline on a 3-broker Kafka cluster', () => {
  it('loses, copies and reorders nothing through leader crashes, a hung broker, sink kills, a rolling restart and a lost broker', async () => {
    const p = await startClusterPipeline({
      brokers: 3,
      rate: 3_000,
      instruments: 500,
      connections: 2,
      members: 2,
      partitions: 6,
      heap: '384m',
      log,
    });
    try {
      expect(p.cluster.replicationFactor).toBe(3);
      const before = await p.cluster.partitionStates(p.topics);
      // Every feed partition on all three brokers.
      expect(before.every((s) => s.replicas.length === 3 && s.isr.length === 3)).toBe(true);
      p.resume();
      await sleep(3_000);
      // broker-loss last: the cluster runs on with two brokers from then on.
      const order = ['leader-kill', 'broker-stop', 'sink-kill', 'rolling-restart', 'broker-loss'] as const;
      expect([...order].sort()).toEqual([...FAULTS].sort());
      const outcomes: FaultOutcome[] = [];
      for (const fault of order) {
        outcomes.push(await runFault(p, fault, { downMs: 10_000, stopMs: 15_000, settleMs: 10_000 }, log));
        await sleep(2_000);
      }
      p.pause();
      const { sent, counts } = await p.settle(240_000);
      for (const o of outcomes) {
        const r = recoveryAfter(p.samples, o.at, o.windowEnd);
        log(
          `${o.fault}: recovery ${r.recoverySeconds} s (acks stalled ${r.ackStallSeconds} s, inserts ${r.storeStallSeconds} s), in sync ${o.inSyncSeconds} s`,
        );
      }
      log(
        `sent ${sent}, stored ${counts.rows} (${counts.unique} unique), replayed ${counts.replayed}, copies ${counts.copies}`,
      );

      // The faults struck: the crashed, hung and lost brokers gave up their leaderships.
      for (const o of outcomes.filter((x) => x.node !== undefined)) {
        expect(o.leadersBefore).toContain(o.node);
        expect(o.leadersMovedSeconds).not.toBeNull();
      }
      // The sink died between an insert and its commit: that block came back and was skipped.
      expect(counts.replayed).toBeGreaterThan(0);
      expect(sent).toBeGreaterThan(50_000);
      expect(counts.unique).toBe(sent);
      expect(counts.rows).toBe(sent);
      expect(counts.split).toBe(0);
      expect(counts.unordered).toBe(0);
    } finally {
      await p.close();
    }
  }, 900_000);
});

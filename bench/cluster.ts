/**
 * npm run bench:cluster -- --brokers 3 --rate 50000 --seconds 60 --fault leader-kill|broker-stop|broker-loss|sink-kill|rolling-restart
 *                          [--instruments 5000] [--connections 5] [--members 2] [--partitions 12] [--store-wait 300]
 *                          [--samples FILE]  (the sampled counters, one JSON line each, ms after the fault)
 *
 * The live pipeline on a local Kafka cluster (bench/support/cluster-pipeline.ts): the simulator in
 * load mode -> feed ingestor -> N brokers (replication 3, min ISR 2, idempotent acks=all producer)
 * -> a group of sink members -> ClickHouse. The fault (bench/support/cluster-faults.ts) strikes a
 * third into the run. Everything sent is then counted end to end: lost, duplicated, instruments
 * split over partitions or out of order in Kafka, and the time to recover (recovery.ts). Progress
 * goes to stderr; the last stdout line is the JSON result.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FAULTS, type FaultName, runFault } from './support/cluster-faults.js';
import { startClusterPipeline } from './support/cluster-pipeline.js';
import { recoveryAfter } from './support/recovery.js';

const { values } = parseArgs({
  options: {
    brokers: { type: 'string', default: '3' },
    rate: { type: 'string', default: '50000' },
    seconds: { type: 'string', default: '60' },
    fault: { type: 'string', default: 'leader-kill' },
    instruments: { type: 'string', default: '5000' },
    connections: { type: 'string', default: '5' },
    members: { type: 'string', default: '2' },
    partitions: { type: 'string', default: '12' },
    'store-wait': { type: 'string', default: '300' },
    samples: { type: 'string' },
  },
});

function bounded(name: string, raw: string | undefined, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`--${name} must be in ${min}..${max}`);
  return value;
}

const fault = values.fault as FaultName;
if (!FAULTS.includes(fault)) throw new Error(`--fault must be one of ${FAULTS.join(', ')}`);
const brokers = bounded('brokers', values.brokers, 3, 9);
const rate = bounded('rate', values.rate, 1, 1_000_000);
const seconds = bounded('seconds', values.seconds, 30, 3_600);
const instruments = bounded('instruments', values.instruments, 1, 25_000);
const connections = bounded('connections', values.connections, 1, 5);
const members = bounded('members', values.members, 1, 12);
const partitions = bounded('partitions', values.partitions, members, 64);
const storeWaitSeconds = bounded('store-wait', values['store-wait'], 1, 3_600);
const log = (m: string) => process.stderr.write(`bench:cluster: ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const p = await startClusterPipeline({ brokers, rate, instruments, connections, members, partitions, log });
  try {
    await sleep(3_000);
    await p.ingestor.drain();
    log(`${instruments} instruments at ${rate} packets/s for ${seconds} s; ${fault} a third in`);
    const started = Date.now();
    p.resume();
    await sleep((seconds * 1_000) / 3);
    const outcome = await runFault(p, fault, { downMs: 10_000, stopMs: 20_000, settleMs: 15_000 }, log);
    const left = started + seconds * 1_000 - Date.now();
    if (left > 0) await sleep(left);
    p.pause();
    log('load stopped; waiting for everything sent to be stored');
    const { sent, counts } = await p.settle(storeWaitSeconds * 1_000);
    const recovery = recoveryAfter(p.samples, outcome.at, outcome.windowEnd);
    const result = {
      bench: 'cluster',
      fault,
      brokers,
      rate,
      seconds,
      sent,
      stored: counts.rows,
      lost: sent - counts.unique,
      duplicates: counts.rows - counts.unique,
      order_violations: counts.unordered,
      split_instruments: counts.split,
      recovery_s: recovery.recoverySeconds,
      ack_stall_s: recovery.ackStallSeconds,
      store_stall_s: recovery.storeStallSeconds,
      leaders_moved_s: outcome.leadersMovedSeconds ?? null,
      in_sync_s: outcome.inSyncSeconds,
      node: outcome.node ?? null,
      sink_members: counts.members,
      replayed_skipped: counts.replayed,
      kafka_copies_dropped: counts.copies,
      producer_resets: p.ingestor.stats().producerResets,
      produce_retries: p.ingestor.stats().produceRetries,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (values.samples) {
      const lines = p.samples.map((s) => JSON.stringify({ ...s, at: s.at - outcome.at }));
      writeFileSync(values.samples, `${lines.join('\n')}\n`);
    }
  } finally {
    await p.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:cluster failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

/**
 * npm run bench:reconnect-stress -- [--runs 20] [--connections 2] [--instruments 300]
 *                                    [--trades-per-tick 20] [--trades-per-phase 20000]
 *
 * Issue #35's scenario, many times in a row: the ingestor against a feed server written from the
 * spec alone (test/reconnect/spec-feed-server.ts) that answers every subscribe request at once with
 * the snapshot and streams to just-subscribed instruments; one connection dropped abnormally (TCP
 * socket destroyed, no close frame), reconnected and re-subscribed. Each run takes fresh topics and
 * is judged per instrument from what is read back from Kafka (test/reconnect/scenario.ts): holes,
 * doubled and reordered trades, snapshots sent, decoded and produced, frames read and not decoded.
 * --instruments is per connection; the first 100 of each connection trade 400 times a second each
 * from their subscription on, and --trades-per-tick is what the others get per 5 ms together;
 * --trades-per-phase the trades sent before the drop and again after the re-subscription. Loopback
 * only; each run bounded by its waits (30 s each). Progress on stderr; the last stdout line is JSON.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { tempDir } from '@feedpipe/testkit';
import { runReconnectScenario } from '../test/reconnect/scenario.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    connections: { type: 'string', default: '2' },
    instruments: { type: 'string', default: '300' },
    'trades-per-tick': { type: 'string', default: '20' },
    'trades-per-phase': { type: 'string', default: '20000' },
    'packet-per-message': { type: 'boolean', default: false },
  },
});

function bounded(name: string, raw: string | undefined, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`--${name} must be an integer in ${min}..${max}`);
  return value;
}

const runs = bounded('runs', values.runs, 1, 200);
const connections = bounded('connections', values.connections, 1, 5);
const instruments = bounded('instruments', values.instruments, 1, 5000);
const tradesPerTick = bounded('trades-per-tick', values['trades-per-tick'], 1, 5000);
const tradesPerPhase = bounded('trades-per-phase', values['trades-per-phase'], 1, 1_000_000);
const log = (m: string) => process.stderr.write(`bench:reconnect-stress: ${m}\n`);

async function main(): Promise<void> {
  const dataDir = tempDir('reconnect-stress-kafka');
  const kafka = await startLocalKafka({ dataDir: join(dataDir, 'kafka'), heap: '768m' });
  const totals = {
    runs: 0,
    failed_runs: 0,
    trades_sent: 0,
    trades_in_kafka: 0,
    holes: 0,
    doubled: 0,
    reordered: 0,
    snapshots_sent: 0,
    snapshots_decoded: 0,
    snapshots_in_kafka: 0,
    frames_undecoded: 0,
    drops: 0,
    reconnects: 0,
  };
  const started = Date.now();
  try {
    for (let run = 1; run <= runs; run++) {
      const v = await runReconnectScenario({
        brokers: kafka.brokers,
        connections,
        instrumentsPerConnection: instruments,
        tradesPerTick,
        tradesPerPhase,
        packetPerMessage: values['packet-per-message'],
        log,
      });
      const undecoded = v.framesUndecoded ?? Number.NaN;
      totals.runs += 1;
      totals.trades_sent += v.tradesSent;
      totals.trades_in_kafka += v.tradesInKafka;
      totals.holes += v.holes;
      totals.doubled += v.doubled;
      totals.reordered += v.reordered;
      totals.snapshots_sent += v.snapshotsSent;
      totals.snapshots_decoded += v.snapshotsDecoded;
      totals.snapshots_in_kafka += v.snapshotsInKafka;
      totals.frames_undecoded += undecoded;
      totals.drops += v.drops;
      totals.reconnects += v.reconnects;
      const bad =
        v.holes + v.doubled + v.reordered > 0 ||
        v.snapshotsDecoded !== v.snapshotsSent ||
        v.snapshotsInKafka !== v.snapshotsSent ||
        undecoded !== 0;
      if (bad) totals.failed_runs += 1;
      log(`run ${run}/${runs}${bad ? ' FAILED' : ''}: ${JSON.stringify(v)}`);
    }
  } finally {
    await kafka.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    JSON.stringify({
      bench: 'reconnect-stress',
      connections,
      instruments_per_connection: instruments,
      trades_per_tick: tradesPerTick,
      trades_per_phase: tradesPerPhase,
      ...totals,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    }),
  );
}

await main();

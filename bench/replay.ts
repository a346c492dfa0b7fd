/**
 * npm run bench:replay -- [--records 200000] [--instruments 5000] [--per-frame 100] [--paced-seconds 20]
 *
 * `feed-ingestor replay`'s two measures against a real local broker: how fast the command puts a
 * capture into Kafka at `--speed max`, with the bulk path of the same capture (replayCapture, the
 * ingestor's decode workers and batch producer) as the baseline in the same run; and how closely
 * `--speed 10x` keeps the pace of a capture recorded over --paced-seconds (wall time against a
 * tenth of the recorded span). Every replay goes to fresh topics of its own. Progress on stderr;
 * the last stdout line is the JSON result:
 * {"bench":"replay","records":N,"command_per_s":...,"bulk_per_s":...,"paced_10x_seconds":...,...}.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { prefixedTopics } from '@feedpipe/contracts';
import { replayCapture, runReplay } from '@feedpipe/feed-ingestor';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import { intFlag } from './support/flags.js';
import { writeTradeCapture } from './support/trade-capture.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string' },
    instruments: { type: 'string' },
    'per-frame': { type: 'string' },
    'paced-seconds': { type: 'string' },
  },
});
const records = intFlag(values.records, 200_000, 'records', 1, 10_000_000);
const instruments = intFlag(values.instruments, 5_000, 'instruments', 1, 100_000);
const perFrame = intFlag(values['per-frame'], 100, 'per-frame', 1, 1_000);
const pacedSeconds = intFlag(values['paced-seconds'], 20, 'paced-seconds', 1, 600);
const log = (m: string) => process.stderr.write(`bench:replay: ${m}\n`);

/** `count` trades spread evenly over `spanSeconds` of receive time. */
function writeCapture(file: string, count: number, spanSeconds: number): Promise<void> {
  const frames = Math.ceil(count / perFrame);
  return writeTradeCapture(file, {
    records: count,
    instruments,
    perFrame,
    receivedAt: (n, start) =>
      start + Math.floor((n / perFrame) * ((spanSeconds * 1_000_000) / Math.max(1, frames - 1))),
  });
}

async function main(): Promise<void> {
  const dir = tempDir('bench-replay');
  const kafkaDir = existsSync('/dev/shm')
    ? join('/dev/shm', uniqueName('bench-replay-kafka'))
    : join(dir, 'kafka');
  const kafka = await startLocalKafka({ dataDir: kafkaDir, heap: '1g' });
  try {
    const bulkCapture = join(dir, 'bulk.capture');
    log(`writing a capture of ${records} trades over ${instruments} instruments`);
    await writeCapture(bulkCapture, records, 60);
    const live = prefixedTopics(uniqueName('bench-replay'));
    log('the command at max speed');
    const command = await runReplay({
      source: { kind: 'capture', file: bulkCapture },
      brokers: kafka.brokers,
      liveTopics: live,
      progress: log,
    });
    if (command.produced !== records)
      throw new Error(`the command produced ${command.produced} of ${records}`);
    log('the bulk path (decode workers) of the same capture');
    const bulk = await replayCapture({
      file: bulkCapture,
      brokers: kafka.brokers,
      topics: prefixedTopics(uniqueName('bench-replay-bulk')),
      workers: 2,
    });
    if (bulk.produced !== records) throw new Error(`the bulk path produced ${bulk.produced} of ${records}`);
    // A capture small enough for any machine to keep its pace: a tenth of the records at most.
    const pacedRecords = Math.min(records, 20_000);
    const pacedCapture = join(dir, 'paced.capture');
    await writeCapture(pacedCapture, pacedRecords, pacedSeconds);
    log(`the command at 10x over ${pacedSeconds} s recorded`);
    const paced = await runReplay({
      source: { kind: 'capture', file: pacedCapture },
      brokers: kafka.brokers,
      liveTopics: live,
      topicPrefix: `${uniqueName('paced')}.`,
      speed: { factor: 10 },
      progress: log,
    });
    const round = (n: number) => Math.round(n * 100) / 100;
    console.log(
      JSON.stringify({
        bench: 'replay',
        records,
        instruments,
        command_per_s: Math.round(records / command.seconds),
        bulk_per_s: Math.round(records / bulk.seconds),
        command_send_retries: command.sendRetries,
        paced_records: paced.produced,
        paced_recorded_seconds: pacedSeconds,
        paced_10x_seconds: round(paced.seconds),
        paced_10x_expected_seconds: round(pacedSeconds / 10),
      }),
    );
  } finally {
    await kafka.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:replay failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

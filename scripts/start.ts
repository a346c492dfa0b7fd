/**
 * `npm start`: the all-in-one runner on embedded defaults. Starts what exists of the pipeline in one
 * process, prints where everything is, and stops it all cleanly on SIGINT/SIGTERM.
 *
 * KAFKA_BROKERS set: use that cluster instead of starting the local broker.
 * CLICKHOUSE_URL set: use that server instead of embedded chDB under DATA_DIR.
 */
import { join, resolve } from 'node:path';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { createStore, runMigrations } from '@feedpipe/store';
import { Kafka, logLevel } from 'kafkajs';

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const stopTasks: Array<() => Promise<void>> = [];
let stopping = false;

async function stopAll(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\nstopping (${reason})...\n`);
  const hardStop = setTimeout(() => {
    process.stderr.write('stop took longer than 9 s; exiting\n');
    process.exit(1);
  }, 9_000);
  hardStop.unref();
  for (const task of stopTasks.reverse()) {
    await task().catch((error: unknown) => process.stderr.write(`stop error: ${(error as Error).message}\n`));
  }
  process.stderr.write('stopped.\n');
  process.exit(0);
}

process.once('SIGINT', () => void stopAll('SIGINT'));
process.once('SIGTERM', () => void stopAll('SIGTERM'));

async function main(): Promise<void> {
  let brokers: string[];
  let kafkaNote: string;
  if (process.env.KAFKA_BROKERS) {
    brokers = process.env.KAFKA_BROKERS.split(',').map((b) => b.trim());
    kafkaNote = 'external cluster (KAFKA_BROKERS)';
  } else {
    process.stderr.write('starting the local Kafka broker...\n');
    const kafka: LocalKafka = await startLocalKafka({ dataDir: join(dataDir, 'kafka') });
    stopTasks.push(() => kafka.stop());
    brokers = kafka.brokers;
    kafkaNote = `local broker, pid ${kafka.pid}, log ${join(dataDir, 'kafka', 'kafka.log')}`;
  }
  if (stopping) return;

  const store = createStore({ url: process.env.CLICKHOUSE_URL, dataDir: join(dataDir, 'chdb') });
  stopTasks.push(() => store.close());
  const migrations = await runMigrations(store.client);

  const admin = new Kafka({ clientId: 'feedpipe-start', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  await admin.disconnect();

  process.stdout.write(
    [
      '',
      'feedpipe is running',
      `  Kafka       ${brokers.join(',')}  (${kafkaNote}; ${cluster.brokers.length} broker(s))`,
      `  ClickHouse  ${store.mode === 'embedded' ? 'embedded chDB' : 'server'} at ${store.location}  (migrations applied: ${migrations.applied.length}, up to date: ${migrations.skipped.length})`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch(async (error: unknown) => {
  process.stderr.write(`start failed: ${(error as Error).message}\n`);
  await stopAll('error');
});

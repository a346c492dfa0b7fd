/**
 * The Kafka -> ClickHouse sink in a process of its own, for benchmarks: embedded chDB blocks the
 * event loop while it inserts (hundreds of ms for a large block), which would stall the ingestor's
 * sockets if both shared a thread; in production they are separate services anyway. Controlled over
 * the IPC channel of fork(): { cmd: 'inserted' | 'progress' | 'counts' | 'flush' | 'close' }; answers
 * { type: 'ready' }, { type: 'inserted', inserted } (the sink's own counter: cheap enough to poll),
 * { type: 'progress', inserted, heapUsed, heapTotal, external, engineTracked } (the counter, its V8
 * heap and Buffers, and chDB's MemoryTracking metric: one small query, for the soak's samples),
 * { type: 'counts', rows, unique, inserted } (a full scan: only at the end), { type: 'gaps', gaps }
 * (the ledger of gaps as intervals: one per connection, cause and bounds, with its instrument rows)
 * and { type: 'flushed' }.
 */
import { FEED_TABLES, prefixedTopics } from '@feedpipe/contracts';
import { createSink } from '@feedpipe/feed-sink';
import { createStore, runMigrations } from '@feedpipe/store';

const [brokers, topicPrefix, groupId, dataDir] = process.argv.slice(2) as [string, string, string, string];
const store = createStore({ url: process.env.CLICKHOUSE_URL || undefined, dataDir });
await runMigrations(store.internal);
const sink = createSink(
  {
    brokers: brokers.split(','),
    groupId,
    topics: prefixedTopics(topicPrefix),
    // The sink's default block (100,000 rows): a block's worth of CSV, fetches and chDB insert buffers
    // is the sawtooth of the sink's memory, so larger blocks buy little once inserts overlap reading.
    maxBatchAgeMs: 1_000,
  },
  {
    store,
    log: (m) => process.stderr.write(`sink: ${m}\n`),
  },
);
await sink.start();

async function counts(): Promise<{ rows: number; unique: number }> {
  const [row] = await store.internal.rows<{ n: string | number; u: string | number }>(
    `SELECT count() AS n, uniqExact(security_id, volume) AS u FROM ${FEED_TABLES.ticks.name}`,
  );
  return { rows: Number(row?.n), unique: Number(row?.u) };
}

/** One interval of the ledger: the rows of market.feed_gaps that share connection, cause and bounds. */
interface StoredGap {
  connection: number;
  cause: string;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  rows: number;
}

async function gaps(): Promise<StoredGap[]> {
  const rows = await store.internal.rows<Record<keyof StoredGap, string | number>>(
    `SELECT connection, cause, toUnixTimestamp64Micro(started_at) AS startedAt,
            toUnixTimestamp64Micro(ended_at) AS endedAt, count() AS rows
       FROM ${FEED_TABLES.feedGaps.name}
      GROUP BY connection, cause, started_at, ended_at
      ORDER BY startedAt, connection`,
  );
  return rows.map((r) => ({
    connection: Number(r.connection),
    cause: String(r.cause),
    startedAt: Number(r.startedAt) / 1000,
    endedAt: Number(r.endedAt) / 1000,
    rows: Number(r.rows),
  }));
}

const insertedTrades = (): number => sink.stats().inserted[FEED_TABLES.ticks.name] ?? 0;

/** What ClickHouse itself accounts for (its MemoryTracking): the engine's share of the sink's RSS. */
async function engineTrackedBytes(): Promise<number> {
  const [row] = await store.internal.rows<{ value: string | number }>(
    "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'",
  );
  return Number(row?.value ?? 0);
}

process.on('message', (message: { cmd: string }) => {
  switch (message.cmd) {
    case 'inserted':
      process.send?.({ type: 'inserted', inserted: insertedTrades() });
      break;
    case 'progress':
      void engineTrackedBytes().then((engineTracked) => {
        const memory = process.memoryUsage();
        process.send?.({
          type: 'progress',
          inserted: insertedTrades(),
          heapUsed: memory.heapUsed,
          heapTotal: memory.heapTotal,
          external: memory.external,
          engineTracked,
        });
      });
      break;
    case 'counts':
      void counts().then((c) => process.send?.({ type: 'counts', ...c, inserted: insertedTrades() }));
      break;
    case 'gaps':
      void gaps().then((g) => process.send?.({ type: 'gaps', gaps: g }));
      break;
    case 'flush':
      void sink.flush().then(() => process.send?.({ type: 'flushed' }));
      break;
    case 'close':
      void sink
        .stop()
        .then(() => store.close())
        .then(() => process.exit(0));
      break;
  }
});
process.send?.({ type: 'ready' });

/**
 * Several sink members of one consumer group in one process, sharing one embedded ClickHouse
 * (chDB binds one data directory per process; separate sink processes need a ClickHouse server,
 * and the code path is the same). For bench:cluster and the cluster tests.
 *
 * argv: brokers (comma-separated), topic prefix, group id, data directory, members.
 * Controlled over the IPC channel of fork():
 *   { cmd: 'inserted' }     -> { type: 'inserted', inserted }   trade rows inserted by every member
 *   { cmd: 'counts' }       -> { type: 'counts', rows, unique, split, unordered, members, copies, replayed }
 *   { cmd: 'flush' }        -> { type: 'flushed' }
 *   { cmd: 'add-member' }   -> { type: 'member-added', members }   one more member joins (a rebalance)
 *   { cmd: 'stop-member' }  -> { type: 'member-stopped', members } the newest member leaves (a rebalance)
 *   { cmd: 'kill-mid-batch' } -> { type: 'armed' }, then the process SIGKILLs itself right after its
 *                              next insert, before that block's offsets are committed
 *   { cmd: 'close' }        -> exits 0 after every member flushed, committed and left
 * and sends { type: 'ready', members } once every member has its first assignment.
 */
import { FEED_TABLES, prefixedTopics } from '@feedpipe/contracts';
import { createSink, type Sink } from '@feedpipe/feed-sink';
import { createStore, runMigrations } from '@feedpipe/store';

const [brokers, topicPrefix, groupId, dataDir, memberCount] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const store = createStore({ url: process.env.CLICKHOUSE_URL || undefined, dataDir });
await runMigrations(store.internal);
let killArmed = false;
const members: Sink[] = [];

async function addMember(): Promise<void> {
  const index = members.length + 1;
  const sink = createSink(
    {
      brokers: brokers.split(','),
      groupId,
      topics: prefixedTopics(topicPrefix),
      maxBatchAgeMs: 1_000,
    },
    {
      store,
      afterInsert: () => {
        // Inserted, not committed: the window a crash leaves for a replay the stored offsets must catch.
        if (killArmed) process.kill(process.pid, 'SIGKILL');
      },
      log: (m) => process.stderr.write(`sink member ${index}: ${m}\n`),
    },
  );
  members.push(sink);
  await sink.start();
}

const ticks = FEED_TABLES.ticks.name;

async function counts(): Promise<Record<string, number>> {
  const [row] = await store.internal.rows<Record<string, string | number>>(
    `SELECT count() AS n, uniqExact(security_id, volume) AS u FROM ${ticks}`,
  );
  // Per instrument: one partition, and volumes (its sequence) rising with the Kafka offset.
  const [order] = await store.internal.rows<Record<string, string | number>>(
    `SELECT countIf(parts > 1) AS split, countIf(vols != arraySort(vols)) AS unordered FROM (
       SELECT security_id, uniqExact(kafka_partition) AS parts,
              arrayMap(t -> t.2, arraySort(t -> t.1, groupArray((kafka_offset, volume)))) AS vols
       FROM ${ticks} GROUP BY security_id)`,
  );
  const sum = (pick: (s: ReturnType<Sink['stats']>) => number) =>
    members.reduce((n, m) => n + pick(m.stats()), 0);
  return {
    rows: Number(row?.n),
    unique: Number(row?.u),
    split: Number(order?.split),
    unordered: Number(order?.unordered),
    members: members.length,
    copies: sum((s) => s.copiesDropped),
    replayed: sum((s) => s.replayedSkipped),
  };
}

const inserted = (): number => members.reduce((n, m) => n + (m.stats().inserted[ticks] ?? 0), 0);

process.on('message', (message: { cmd: string }) => {
  const reply = (m: object) => process.send?.(m);
  switch (message.cmd) {
    case 'inserted':
      reply({ type: 'inserted', inserted: inserted() });
      break;
    case 'counts':
      void counts().then((c) => reply({ type: 'counts', ...c }));
      break;
    case 'flush':
      void Promise.all(members.map((m) => m.flush())).then(() => reply({ type: 'flushed' }));
      break;
    case 'add-member':
      void addMember().then(() => reply({ type: 'member-added', members: members.length }));
      break;
    case 'stop-member':
      void members
        .pop()
        ?.stop()
        .then(() => reply({ type: 'member-stopped', members: members.length }));
      break;
    case 'kill-mid-batch':
      killArmed = true;
      reply({ type: 'armed' });
      break;
    case 'close':
      void Promise.all(members.map((m) => m.stop()))
        .then(() => store.close())
        .then(() => process.exit(0));
      break;
  }
});

// Members join one after another, as replicas of a deployment start: each join is a rebalance.
for (let i = 0; i < Math.max(1, Number(memberCount)); i++) await addMember();
process.send?.({ type: 'ready', members: members.length });

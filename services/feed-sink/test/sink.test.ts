import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FEED_TABLES } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSink } from '../src/index.js';
import { topicsFor } from './fixtures/feed-fixtures.js';
import { tradeMessages } from './fixtures/feed-records.js';
import { produce as produceTo } from './fixtures/produce.js';

const brokers = inject('kafkaBrokers');
const produce = (topic: string, messages: Array<{ key: string; value: string }>) =>
  produceTo(brokers, topic, messages, 'sink-test');

async function createTopics(prefix: string): Promise<void> {
  await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topicsFor(prefix)), { partitions: 3 });
}

describe('sink into embedded ClickHouse', () => {
  let store: Store;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('sink') });
    await runMigrations(store.internal);
  });
  afterAll(async () => {
    await store.close();
  });

  async function count(query: string): Promise<number> {
    const [row] = await store.internal.rows<{ n: number | string }>(query);
    return Number(row?.n);
  }

  it('stores every record of every topic once, with bars built from the ticks', async () => {
    const prefix = uniqueName('sinkall');
    await createTopics(prefix);
    const topics = topicsFor(prefix);
    const trades = tradeMessages(50, 200);
    await produce(topics.trades, trades);
    await produce(topics.ohlc, [
      {
        key: '7',
        value:
          '{"type":"ohlc","segment":14,"securityId":7,"open":1.5,"close":2,"high":2.5,"low":1,"receivedAt":1760000000000001}',
      },
    ]);
    await produce(topics.reference, [
      {
        key: '7',
        value:
          '{"type":"prev_close","segment":14,"securityId":7,"prevClose":99.5,"receivedAt":1760000000000002}',
      },
      {
        key: '7',
        value:
          '{"type":"circuit_limit","segment":14,"securityId":7,"upper":110,"lower":90,"receivedAt":1760000000000003}',
      },
      {
        key: '0',
        value: '{"type":"week52","segment":0,"securityId":0,"high":0,"low":0,"receivedAt":1760000000000004}',
      },
    ]);
    await produce(topics.status, [
      {
        key: '0',
        value:
          '{"type":"market_status","segment":14,"securityId":0,"marketType":[1,2,3],"status":2,"receivedAt":1760000000000005}',
      },
      {
        key: '0',
        value: '{"type":"error","segment":0,"securityId":0,"code":805,"receivedAt":1760000000000006}',
      },
      { key: '0', value: 'not json at all' },
    ]);
    const sink = createSink(
      {
        brokers,
        groupId: uniqueName('g'),
        topics,
        maxBatchRows: 3_000,
        maxBatchAgeMs: 100,
      },
      {
        store,
        log: () => undefined,
      },
    );
    await sink.start();
    await waitFor(
      async () => (await count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`)) >= trades.length,
      60_000,
      'ticks stored',
    );
    await waitFor(
      async () => (await count(`SELECT count() AS n FROM ${FEED_TABLES.feedStatus.name}`)) >= 2,
      30_000,
      'status stored',
    );
    // Each topic is fetched on its own, so complete ticks and status say nothing about the others.
    await waitFor(
      async () => (await count(`SELECT count() AS n FROM ${FEED_TABLES.ohlcUpdates.name}`)) >= 1,
      30_000,
      'OHLC stored',
    );
    await waitFor(
      async () => (await count(`SELECT count() AS n FROM ${FEED_TABLES.referenceUpdates.name}`)) >= 3,
      30_000,
      'reference stored',
    );
    await sink.stop();

    const ours = "kafka_cluster != 'some-other-cluster'";
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE ${ours}`)).toBe(
      trades.length,
    );
    expect(
      await count(`SELECT uniqExact(security_id, volume) AS n FROM ${FEED_TABLES.ticks.name} WHERE ${ours}`),
    ).toBe(trades.length);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.ohlcUpdates.name}`)).toBe(1);
    expect(
      await count(
        `SELECT count() AS n FROM ${FEED_TABLES.referenceUpdates.name} WHERE kind = 'circuit_limit' AND value1 = 110 AND value2 = 90`,
      ),
    ).toBe(1);
    expect(
      await count(`SELECT count() AS n FROM ${FEED_TABLES.referenceUpdates.name} WHERE security_id = 0`),
    ).toBe(1);
    expect(
      await count(
        `SELECT count() AS n FROM ${FEED_TABLES.feedStatus.name} WHERE type = 'error' AND error_code = 805`,
      ),
    ).toBe(1);
    expect(sink.stats().invalid).toBe(1);
    // Each instrument's volume steps by 1 from 1: every trade's quantity is 1 (the first one's whole volume).
    expect(
      await count(`SELECT countIf(quantity != 1) AS n FROM ${FEED_TABLES.ticks.name} WHERE ${ours}`),
    ).toBe(0);
    // 1-minute bars: every trade is counted in exactly one bar of its instrument, its quantity too.
    expect(
      await count(`SELECT sum(quantity) AS n FROM ${FEED_TABLES.bars1m.name} WHERE security_id != 999999`),
    ).toBe(trades.length);
    expect(
      await count(`SELECT sum(trades) AS n FROM ${FEED_TABLES.bars1m.name} WHERE security_id != 999999`),
    ).toBe(trades.length);
    expect(
      await count(
        `SELECT uniqExact(security_id) AS n FROM ${FEED_TABLES.bars1m.name} WHERE security_id != 999999`,
      ),
    ).toBe(50);
  });

  it('reports its lag from the committed offsets, probing over one connection it keeps', async () => {
    const prefix = uniqueName('sinklag');
    await createTopics(prefix);
    const topics = topicsFor(prefix);
    const trades = tradeMessages(10, 30);
    await produce(topics.trades, trades);
    let release: () => void = () => undefined;
    const committed = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sink = createSink(
      {
        brokers,
        groupId: uniqueName('g'),
        topics,
        maxBatchAgeMs: 100,
      },
      {
        store,
        // Holds the commit of the first block: until then every trade counts as lag.
        afterInsert: () => committed,
        log: () => undefined,
      },
    );
    const lagOf = async (topic: string) =>
      (await sink.metrics.lag.get()).values.find((v) => v.labels.topic === topic)?.value;
    await sink.start();
    try {
      // A probe sets the topics one after another: wait for the whole probe, not its first topic.
      let seen = '';
      await waitFor(
        async () => {
          const [tradesLag, statusLag] = [await lagOf(topics.trades), await lagOf(topics.status)];
          seen = `trades ${tradesLag}, status ${statusLag}, consumer up ${sink.stats().consumerUp}`;
          return tradesLag === trades.length && statusLag === 0;
        },
        30_000,
        () => `lag of every trade, none elsewhere (last seen: ${seen})`,
      );
      expect(await lagOf(topics.ohlc)).toBe(0);
      release();
      // A later probe, on the same kept connection, sees the commit.
      await waitFor(async () => (await lagOf(topics.trades)) === 0, 30_000, 'lag back to zero');
    } finally {
      release();
      await sink.stop();
    }
  });
});

describe('sink crash between insert and commit', () => {
  it('replays the uncommitted batch without duplicates and without gaps', async () => {
    const prefix = uniqueName('sinkcrash');
    await createTopics(prefix);
    const trades = tradeMessages(20, 1_000);
    await produce(`${prefix}.trades`, trades);
    const dataDir = tempDir('sinkcrash');
    const groupId = uniqueName('crashgroup');
    const child = fileURLToPath(new URL('./fixtures/sink-child.ts', import.meta.url));

    // First run: killed right after its first insert, before committing the offsets.
    const first = spawn(
      process.execPath,
      ['--import', 'tsx', child, 'crash', brokers.join(','), prefix, dataDir, groupId, '0'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    first.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    await waitFor(
      () => output.includes(`INSERTED ${FEED_TABLES.ticks.name}`),
      60_000,
      'first insert of the crashing sink',
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const insertedBeforeCrash = Number(/INSERTED market\.ticks (\d+)/.exec(output)?.[1]);
    expect(insertedBeforeCrash).toBeGreaterThan(0);

    // Second run: same group and store; it re-reads from the last commit and must skip what is stored.
    const second = spawn(
      process.execPath,
      ['--import', 'tsx', child, 'drain', brokers.join(','), prefix, dataDir, groupId, String(trades.length)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let result = '';
    second.stdout.on('data', (d: Buffer) => {
      result += d.toString();
    });
    const code = await new Promise((r) => second.once('exit', r));
    expect(code).toBe(0);
    const report = JSON.parse(result.trim().split('\n').pop() ?? '{}') as {
      rows: number;
      unique: number;
      quantity: number;
      stats: { replayedSkipped: number };
    };
    expect(report.rows).toBe(trades.length);
    expect(report.unique).toBe(trades.length);
    // Every trade steps its instrument's volume by 1: the restarted sink took each instrument's
    // predecessor from the store, so no trade after the crash counts the whole day's volume.
    expect(report.quantity).toBe(trades.length);
    expect(report.stats.replayedSkipped, JSON.stringify(report)).toBeGreaterThanOrEqual(insertedBeforeCrash);
  });
});

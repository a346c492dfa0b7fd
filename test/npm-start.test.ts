/**
 * What outside clients find once `npm start` is up (issue #33), on one run of it:
 * - every topic of the contract with its partitions (item 2), `orders.updates` among them before
 *   any order: a consumer that subscribes right after start finds them all, instead of unknown-topic
 *   errors until the gateway's first order update;
 * - the JDBC URL in the banner (item 1), which the official ClickHouse JDBC driver browses as is.
 */
import { contractTopics } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { MARKET_DATA_TABLES } from '@feedpipe/query-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browseWithJdbc, jdbcClassPath } from './jdbc-metadata/driver.js';
import { type RunningStart, startNpmStart } from './npm-start/running-start.js';

let start: RunningStart | undefined;

let classPath: string;

beforeAll(async () => {
  classPath = jdbcClassPath();
  start = await startNpmStart();
}, 600_000);

afterAll(async () => {
  await start?.stop();
}, 90_000);

describe('npm start creates every contract topic', () => {
  it('has each topic, with its partitions and a leader for each, before the first order', async () => {
    const running = start as RunningStart;
    const expected = contractTopics();
    expect(expected.map((t) => t.name)).toContain('orders.updates');
    const admin = new KafkaAdmin({ brokers: running.brokers, clientId: 'npm-start-topics-test' });
    try {
      const states = await admin.partitionStates(expected.map((t) => t.name));
      for (const topic of expected) {
        const partitions = states.filter((s) => s.topic === topic.name);
        expect(partitions.length, topic.name).toBe(topic.partitions);
        for (const p of partitions)
          expect(p.leader, `${topic.name}/${p.partition}`).toBeGreaterThanOrEqual(0);
      }
      // Nothing has been ordered: the order-updates topic is empty, it exists ahead of its records.
      const offsets = await admin.topicOffsets('orders.updates');
      expect(offsets.every((o) => o.high === o.low)).toBe(true);
    } finally {
      await admin.close();
    }
  });
});

describe("npm start's JDBC URL", () => {
  it('is printed in the banner and browsed by the ClickHouse JDBC driver with the read key', async () => {
    const running = start as RunningStart;
    expect(running.jdbcUrl).toMatch(/^jdbc:clickhouse:http:\/\/127\.0\.0\.1:\d+\/market$/);
    const browse = await browseWithJdbc(classPath, running.jdbcUrl as string, running.readKey);
    expect(browse.tables.map((t) => `${t.schema}.${t.name}`).sort()).toEqual([...MARKET_DATA_TABLES].sort());
    expect(browse.columns.map((c) => c.name)).toContain('ltp');
  });
});

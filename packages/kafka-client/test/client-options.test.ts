/**
 * Every client reads its options at construction: an unknown key is refused with the allowed list,
 * a bad value with what is allowed (CONFIG_INVALID), before any connection is opened, so these
 * need no broker (127.0.0.1:1 is never dialled).
 */
import { describe, expect, it } from 'vitest';
import {
  BatchConsumer,
  BatchProducer,
  JsonProducer,
  KafkaAdmin,
  type KafkaClientError,
  KafkaLeadership,
  RecordAges,
  TopicTail,
} from '../src/index.js';

const brokers = ['127.0.0.1:1'];
const CONNECTION = 'brokers, clientId, requestTimeoutMs';
const FETCH = `${CONNECTION}, topics, eachBatch, maxBytes, maxBytesPerPartition, maxWaitMs, checkCrcs, retryBackoffMs, maxRetryBackoffMs, startTimeoutMs, onError`;

/** The error `build` throws (the test fails if it builds). */
function refusal(build: () => unknown): KafkaClientError {
  try {
    build();
  } catch (error) {
    return error as KafkaClientError;
  }
  throw new Error('the options were accepted');
}

const clients: [string, (extra: object) => unknown, string][] = [
  ['admin', (extra) => new KafkaAdmin({ brokers, ...extra }), CONNECTION],
  ['record ages', (extra) => new RecordAges({ brokers, ...extra }), CONNECTION],
  ['JSON producer', (extra) => new JsonProducer({ brokers, ...extra }), `${CONNECTION}, autocreateTopics`],
  [
    'batch producer',
    (extra) => new BatchProducer({ brokers, ...extra }),
    `${CONNECTION}, ackTimeoutMs, deliveryTimeoutMs, retryBackoffMs, maxRetryBackoffMs, autocreateTopics`,
  ],
  [
    'topic tail',
    (extra) => new TopicTail({ brokers, topics: ['t'], eachBatch: () => undefined, ...extra }),
    `${FETCH}, from, startAt, metadataRefreshMs`,
  ],
  [
    'batch consumer',
    (extra) =>
      new BatchConsumer({ brokers, groupId: 'g', topics: ['t'], eachBatch: () => undefined, ...extra }),
    `${FETCH}, groupId, fromBeginning, sessionTimeoutMs, rebalanceTimeoutMs, heartbeatIntervalMs, fetchTimeoutMs, minBytes, onAssigned, onRevoked`,
  ],
];

describe('client options', () => {
  it.each(clients)('%s: an unknown key is refused with the allowed list', (what, build, allowed) => {
    const error = refusal(() => build({ bogus: 1 }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(`${what} options: unknown option "bogus" (allowed: ${allowed})`);
  });

  it.each(clients)('%s: brokers that are not host:port and a bad timeout are named', (what, build) => {
    expect(refusal(() => build({ brokers: [] })).message).toContain('"brokers" must be a list of at least 1');
    expect(refusal(() => build({ brokers: ['localhost'] })).message).toBe(
      `${what} options: "brokers" must list host:port entries`,
    );
    expect(refusal(() => build({ requestTimeoutMs: 0 })).message).toContain(
      '"requestTimeoutMs" must be an integer from 1 to 2147483647',
    );
  });

  it('names the topics, callbacks and enums of the consumers', () => {
    const tail = (extra: object) =>
      refusal(() => new TopicTail({ brokers, topics: ['t'], eachBatch: () => undefined, ...extra }));
    expect(tail({ topics: ['t', ''] }).message).toContain('"topics" must list non-empty topic names');
    expect(tail({ eachBatch: 'no' }).message).toContain('"eachBatch" must be a function');
    expect(tail({ from: 'middle' }).message).toContain('"from" must be one of latest, earliest');
    const consumer = refusal(
      () => new BatchConsumer({ brokers, topics: ['t'], eachBatch: () => undefined } as never),
    );
    expect(consumer.message).toContain('"groupId" is required');
  });

  it('the leadership refuses unknown keys and names its own ranges', () => {
    const leadership = (extra: object) =>
      refusal(
        () => new KafkaLeadership({ brokers, groupId: 'g', topic: 't', onChange: () => undefined, ...extra }),
      );
    expect(leadership({ bogus: 1 }).message).toBe(
      'leadership options: unknown option "bogus" (allowed: brokers, clientId, groupId, topic, sessionTimeoutMs, heartbeatIntervalMs, marginMs, onChange, onError, onStandby, now)',
    );
    expect(leadership({ marginMs: -1 }).message).toContain(
      '"marginMs" must be an integer from 0 to 2147483647',
    );
    expect(leadership({ onChange: 'no' }).message).toContain('"onChange" must be a function');
  });

  it('ensureTopics refuses a bad count or timeout before it asks the broker', async () => {
    const admin = new KafkaAdmin({ brokers });
    await expect(admin.ensureTopics(['t'], { partitions: -2 })).rejects.toThrow(
      'ensureTopics options: "partitions" must be an integer from -1 to 1000000',
    );
    await expect(admin.ensureTopics(['t'], { timeoutMs: 0 })).rejects.toThrow(
      '"timeoutMs" must be an integer',
    );
    await admin.close();
  });
});

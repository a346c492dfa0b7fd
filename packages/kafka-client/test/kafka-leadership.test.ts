/**
 * KafkaLeadership: one leader per group on a one-partition control topic, kept by its holder when
 * others join (sticky), passed on at once when the holder leaves and after the session when it
 * stops heartbeating; a leader whose lease ran out stops leading before the coordinator can expire it.
 */
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { chooseLeader, KafkaLeadership, type KafkaLeadershipOptions } from '../src/index.js';

const brokers = inject('kafkaBrokers');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const claim = (memberId: string, value: object | undefined) => ({
  memberId,
  topics: ['control'],
  userData: value ? Buffer.from(JSON.stringify(value)) : undefined,
});

describe('chooseLeader', () => {
  it('keeps the holder, even when a member that started earlier joins', () => {
    const members = [
      claim('a', { holding: false, since: -1, startedAt: 1 }),
      claim('b', { holding: true, since: 4, startedAt: 9 }),
    ];
    expect(chooseLeader(members)).toBe('b');
  });

  it('prefers the later holder when two claim (the earlier one outlived its lease)', () => {
    const members = [
      claim('a', { holding: true, since: 3, startedAt: 1 }),
      claim('b', { holding: true, since: 7, startedAt: 2 }),
    ];
    expect(chooseLeader(members)).toBe('b');
  });

  it('with no holder, prefers a designated successor over a longer-running member', () => {
    const members = [
      claim('a', { holding: false, designated: false, since: -1, startedAt: 1 }),
      claim('b', { holding: false, designated: true, since: -1, startedAt: 5 }),
    ];
    expect(chooseLeader(members)).toBe('b');
  });

  it('with no holder, gives it to the longest-running member, and reads foreign user data as no claim', () => {
    const members = [
      claim('c', undefined),
      claim('b', { holding: false, since: -1, startedAt: 20 }),
      claim('a', { holding: false, since: -1, startedAt: 10 }),
    ];
    expect(chooseLeader(members)).toBe('a');
    expect(chooseLeader([claim('z', undefined), claim('y', undefined)])).toBe('y');
    expect(chooseLeader([])).toBeUndefined();
  });
});

describe('KafkaLeadership against the broker', () => {
  function member(
    groupId: string,
    topic: string,
    extra: Partial<KafkaLeadershipOptions> = {},
  ): { leadership: KafkaLeadership; changes: Array<[boolean, string]> } {
    const changes: Array<[boolean, string]> = [];
    const leadership = new KafkaLeadership({
      brokers,
      groupId,
      topic,
      sessionTimeoutMs: 3_000,
      onChange: (leading, why) => changes.push([leading, why]),
      ...extra,
    });
    cleanups.push(() => leadership.stop());
    return { leadership, changes };
  }

  it('one leads; a member that joins later stands by; the leader leaving hands over at once', async () => {
    const groupId = uniqueName('kc-lead');
    const topic = uniqueName('kc-control');
    const a = member(groupId, topic);
    await a.leadership.start();
    await waitFor(() => a.leadership.role === 'leader', 20_000, 'a to lead');
    expect(a.leadership.leading()).toBe(true);
    expect(a.leadership.leaseRemainingMs()).toBeGreaterThan(0);

    const b = member(groupId, topic);
    await b.leadership.start();
    await waitFor(() => b.leadership.role === 'standby', 20_000, 'b to stand by');
    // The rebalance that b's join caused kept the partition with its holder.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(a.leadership.leading()).toBe(true);
    expect(b.leadership.leading()).toBe(false);
    expect(a.changes).toEqual([[true, expect.any(String)]]);

    const leftAt = Date.now();
    await a.leadership.stop();
    await waitFor(() => b.leadership.leading(), 20_000, 'b to lead');
    // A LeaveGroup moves the partition without waiting for the session to expire.
    expect(Date.now() - leftAt).toBeLessThan(3_000);
    expect(a.changes.map(([leading]) => leading)).toEqual([true, false]);
  }, 60_000);

  it('a leader whose lease ran out (a frozen clock jumping ahead) stops leading at its next act', async () => {
    let skew = 0;
    const a = member(uniqueName('kc-lead'), uniqueName('kc-control'), {
      now: () => performance.now() + skew,
    });
    await a.leadership.start();
    await waitFor(() => a.leadership.leading(), 20_000, 'a to lead');
    skew = 10_000;
    expect(a.leadership.leading()).toBe(false);
    expect(a.changes.at(-1)).toEqual([false, 'its lease ran out']);
  }, 60_000);

  it('refuses a heartbeat and margin that leave no lease', () => {
    expect(
      () =>
        new KafkaLeadership({
          brokers,
          groupId: 'g',
          topic: 't',
          sessionTimeoutMs: 1_000,
          heartbeatIntervalMs: 600,
          marginMs: 500,
          onChange: () => undefined,
        }),
    ).toThrow(/must be below the session/);
  });
});

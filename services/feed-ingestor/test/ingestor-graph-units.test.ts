/**
 * The parts the ingestor's object graph is built from, without sockets or Kafka: the subscription
 * book (placement within the spec's limits), the connection machine's liveness and gap causes, the
 * frame intake and its taps, and the refusal of unknown ingestor options.
 */

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConnectionMachine, type LinkState } from '../src/feed/connection-machine.js';
import { SubscriptionBook } from '../src/feed/subscription-book.js';
import {
  createFeedIngestor,
  type FeedIngestorConfig,
  type FeedIngestorDeps,
  IngestorError,
} from '../src/index.js';
import { FrameIntake } from '../src/pipeline/frame-intake.js';

const ids = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(from + i));

describe('SubscriptionBook', () => {
  it('spreads instruments over the connection with the most room, each on exactly one', () => {
    const book = new SubscriptionBook(5, 5_000);
    const placed = book.add('trade', ids(1, 1_000));
    expect([...placed.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    for (let c = 0; c < 5; c++) expect(book.loadOf(c)).toBe(200);
    // OHLC subscriptions count toward the same per-connection limit.
    book.add('ohlc', ids(1, 3));
    book.add('trade', ids(5_000, 2));
    const loads = [0, 1, 2, 3, 4].map((c) => book.loadOf(c));
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
    expect(book.count('trade')).toBe(1_002);
    const owners = [0, 1, 2, 3, 4].filter((c) => book.instrumentsOf(c).trade.has('17'));
    expect(owners).toHaveLength(1);
  });

  it('places nothing and says why when instruments do not all fit; an instrument held is not placed again', () => {
    const book = new SubscriptionBook(2, 3);
    expect(book.add('trade', ['1', '2', '3', '1']).size).toBe(2);
    expect(book.add('trade', ['1', '2']).size).toBe(0);
    const refused = (() => {
      try {
        book.add('ohlc', ids(10, 4));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(IngestorError);
    expect((refused as IngestorError).code).toBe('SUBSCRIPTION_LIMIT');
    expect((refused as IngestorError).message).toContain('3 slots left of 6');
    expect(book.count('ohlc')).toBe(0);
  });

  it('removes what it holds and reports which connection held it; the freed room is used first', () => {
    const book = new SubscriptionBook(3, 10);
    book.add('trade', ids(1, 9));
    const removed = book.remove('trade', ['1', '4', '7', 'unknown']);
    expect([...removed.values()].flat().sort()).toEqual(['1', '4', '7']);
    const emptied = [...removed.keys()];
    expect(emptied).toHaveLength(1);
    const refilled = book.add('trade', ids(100, 3));
    expect([...refilled.keys()]).toEqual(emptied);
    expect(book.held().trade).toHaveLength(9);
  });

  it('refuses a per-connection limit outside the spec with CONFIG_INVALID', () => {
    expect(() => new SubscriptionBook(5, 5_001)).toThrow(/maxSubscriptionsPerConnection must be 1\.\.5000/);
    expect(() => new SubscriptionBook(5, 0)).toThrow(IngestorError);
  });
});

/** A machine driven to 'open' with its socket open. */
function openMachine(): { machine: ConnectionMachine; links: LinkState[] } {
  const machine = new ConnectionMachine();
  const links: LinkState[] = [];
  const fire = (event: Parameters<ConnectionMachine['fire']>[0]): void => {
    machine.fire(event);
    const link = machine.relink();
    if (link) links.push(link);
  };
  fire({ type: 'start' });
  fire({ type: 'ticket-granted', reconnect: false });
  fire({ type: 'opened' });
  return { machine, links };
}

describe('ConnectionMachine', () => {
  it('is live once its socket opened, and gives the cause when the subscriptions stop being live', () => {
    const { machine, links } = openMachine();
    expect(links).toEqual([{ live: true }]);
    expect(machine.everOpened).toBe(true);
    machine.setPaused(true);
    expect(machine.relink()).toEqual({ live: false, cause: 'backpressure' });
    machine.setPaused(false);
    expect(machine.relink()).toEqual({ live: true });
    machine.fire({ type: 'closed', failure: { kind: 'error-packet', code: 805 }, opened: true });
    expect(machine.state).toBe('evicted');
    expect(machine.relink()).toEqual({ live: false, cause: 'eviction' });
    // Reported once: the same liveness again is not a change.
    expect(machine.relink()).toBeUndefined();
  });

  it("drains an open socket for a reconnect once, and the gap that follows is the reconnect's cause", () => {
    const { machine } = openMachine();
    expect(machine.planReconnect('token_renewal', true)).toBe('drain');
    expect(machine.planReconnect('token_renewal', true)).toBe('draining');
    expect(machine.draining).toBe(true);
    // Still live while draining: the server may still be sending.
    expect(machine.relink()).toBeUndefined();
    const step = machine.fire({
      type: 'closed',
      failure: { kind: 'closed', code: 1000 },
      opened: true,
      drained: true,
    });
    expect(step.actions.map((a) => a.type)).toContain('begin-attempt');
    expect(machine.draining).toBe(false);
    expect(machine.relink()).toEqual({ live: false, cause: 'token_renewal' });
  });

  it('reconnects without a drain when the socket cannot send; the cause holds until live again', () => {
    const { machine } = openMachine();
    expect(machine.planReconnect('reconnect_pending', false)).toBe('reconnect');
    machine.fire({ type: 'reconnect-now', reason: 'asked' });
    expect(machine.relink()).toEqual({ live: false, cause: 'reconnect_pending' });
    machine.fire({ type: 'ticket-granted', reconnect: machine.everOpened });
    expect(machine.reason).toBe('reconnecting');
    machine.fire({ type: 'opened' });
    expect(machine.relink()).toEqual({ live: true });
  });

  it('leaves its state unchanged when an event is illegal, and records a failure as fatal', () => {
    const machine = new ConnectionMachine();
    expect(() => machine.fire({ type: 'opened' })).toThrow(IngestorError);
    expect(machine.state).toBe('idle');
    machine.failed('ILLEGAL_TRANSITION: test');
    expect(machine.state).toBe('fatal');
    expect(machine.reason).toBe('ILLEGAL_TRANSITION: test');
  });
});

describe('FrameIntake', () => {
  it('counts each frame, shows it to the taps in order, then hands it on', () => {
    const order: string[] = [];
    const counter = { inc: (n = 1) => order.push(`count ${n}`) };
    const intake = new FrameIntake(
      {
        push: (connection, frame) => {
          order.push(`push ${connection} ${frame.byteLength}`);
          return true;
        },
      },
      { frames: counter, bytes: counter } as unknown as ConstructorParameters<typeof FrameIntake>[1],
    );
    intake.tap({ frame: (connection) => order.push(`tap A ${connection}`) });
    intake.tap({ frame: (connection) => order.push(`tap B ${connection}`) });
    intake.receive(3, Buffer.alloc(40), 1);
    expect(order).toEqual(['count 1', 'count 40', 'tap A 3', 'tap B 3', 'push 3 40']);
    expect(intake.counts).toEqual({ frames: 1, bytes: 40 });
  });
});

describe('createFeedIngestor(config, deps)', () => {
  const valid: FeedIngestorConfig = { feedUrl: 'ws://127.0.0.1:1/', brokers: ['127.0.0.1:1'] };
  const deps: FeedIngestorDeps = { credentials: { clientId: 'c', token: 't', authType: 2 } };
  const refusal = (config: object, given: object = deps): string => {
    try {
      createFeedIngestor(config as FeedIngestorConfig, given as FeedIngestorDeps);
    } catch (error) {
      expect(error).toBeInstanceOf(IngestorError);
      expect((error as IngestorError).code).toBe('CONFIG_INVALID');
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('refuses an unknown key, naming it and the allowed keys', () => {
    expect(refusal({ ...valid, stalAfterMs: 5 })).toMatch(
      /^ingestor config: unknown option "stalAfterMs" \(allowed: feedUrl, brokers, .*staleAfterMs/,
    );
    // A port handed as config is refused there, and an unknown dep among the deps.
    expect(refusal({ ...valid, credentials: deps.credentials })).toContain('unknown option "credentials"');
    expect(refusal(valid, { ...deps, registy: {} })).toBe(
      'ingestor deps: unknown option "registy" (allowed: credentials, attemptBudget, registry, log, onFenced)',
    );
    expect(refusal(valid, {})).toContain('ingestor deps: "credentials" is required');
    expect(refusal({ ...valid, wal: { dir: '/w', fsyncEvery: 5 } })).toMatch(
      /^ingestor config.wal: unknown option "fsyncEvery" \(allowed: dir, maxBytes,/,
    );
    expect(refusal({ ...valid, leadership: { groupID: 'g' } })).toMatch(
      /^ingestor config.leadership: unknown option "groupID" \(allowed: groupId, topic,/,
    );
  });

  it('refuses a bad value before anything is built', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'ingestor-config-')), 'wal');
    expect(refusal({ ...valid, connections: 6, wal: { dir } })).toContain(
      '"connections" must be an integer from 1 to 5',
    );
    // Refused whole before any part is built: the write-ahead log made no directory.
    expect(existsSync(dir)).toBe(false);
    expect(refusal({ ...valid, staleAfterMs: -1 })).toContain('"staleAfterMs" must be an integer from 0');
    expect(refusal({ ...valid, maxSubscriptionsPerConnection: 6_000 })).toContain(
      '"maxSubscriptionsPerConnection" must be an integer from 1 to 5000',
    );
    expect(refusal({ ...valid, feedUrl: 'http://127.0.0.1:1/' })).toContain(
      '"feedUrl" must be a ws:// or wss:// URL',
    );
    expect(refusal({ ...valid, brokers: [] })).toContain('"brokers" must be a list of at least 1');
    expect(refusal({ ...valid, leadership: { sessionTimeoutMs: 0 } })).toContain(
      'ingestor config.leadership: "sessionTimeoutMs" must be an integer from 1 to 60000',
    );
  });
});

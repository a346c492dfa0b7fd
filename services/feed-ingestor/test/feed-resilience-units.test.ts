/**
 * The pure parts of the feed client's resilience: the shared attempt budget, the one failure
 * classification, the jittered backoff, the socket thread's frame scans and the readiness verdict.
 */

import { FrameBuilder, MsgCode, PACKET_SIZE, PacketCursor, SEGMENT_INX_EQ } from '@feedpipe/codec';
import { Backoff } from '@feedpipe/retry';
import { describe, expect, it } from 'vitest';
import { AttemptBudget } from '../src/feed/attempt-budget.js';
import type { ConnectionSnapshot } from '../src/feed/connection-pool.js';
import { classifyFeedFailure, type FeedFailure } from '../src/feed/failure-class.js';
import { lastMarketStatus, loneErrorCode } from '../src/feed/frame-scan.js';
import { IngestorError } from '../src/index.js';
import { assessFeedReadiness } from '../src/readiness.js';

/** A fake clock the budget reads. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('AttemptBudget', () => {
  it('never lets more than maxAttempts failing attempts into any window, however many connections ask', () => {
    const c = clock();
    const budget = new AttemptBudget({ maxAttempts: 8, windowMs: 60_000, now: c.now, random: () => 0.5 });
    const started: number[] = [];
    // Five connections retrying every 100 ms for 5 minutes, every attempt refused.
    for (let step = 0; step < 3_000; step++) {
      for (let conn = 0; conn < 5; conn++) {
        const ticket = budget.tryBegin();
        if (!ticket) continue;
        started.push(c.now());
        ticket.failed();
      }
      c.advance(100);
    }
    expect(started.length).toBeGreaterThan(8);
    for (let i = 0; i < started.length; i++) {
      const inWindow = started.filter(
        (t) => t >= (started[i] as number) && t < (started[i] as number) + 60_000,
      );
      expect(inWindow.length).toBeLessThanOrEqual(8);
    }
  });

  it('waits for the window to pass when spent, then allows again (a wait, never a verdict)', () => {
    const c = clock();
    const budget = new AttemptBudget({ maxAttempts: 3, windowMs: 10_000, now: c.now, random: () => 0 });
    for (let i = 0; i < 3; i++) {
      const ticket = budget.tryBegin();
      expect(ticket).toBeDefined();
      ticket?.failed();
    }
    expect(budget.tryBegin()).toBeUndefined();
    expect(budget.delayMs()).toBe(10_000);
    c.advance(9_999);
    expect(budget.tryBegin()).toBeUndefined();
    c.advance(1);
    expect(budget.delayMs()).toBe(0);
    expect(budget.tryBegin()).toBeDefined();
  });

  it('after a failure lets one probe at a time through, and a success gives its slot back', () => {
    const c = clock();
    const budget = new AttemptBudget({ maxAttempts: 8, windowMs: 60_000, now: c.now, random: () => 0 });
    // Healthy start: five connections at once, each proven valid.
    const first = [1, 2, 3, 4, 5].map(() => budget.tryBegin());
    expect(first.every((t) => t !== undefined)).toBe(true);
    for (const t of first) t?.succeeded();
    expect(budget.counted).toBe(0);
    // One fails: the next probe may go (full jitter drew 0), a second one must wait for it.
    budget.tryBegin()?.failed();
    const probe = budget.tryBegin();
    expect(probe).toBeDefined();
    expect(budget.tryBegin()).toBeUndefined();
    probe?.succeeded();
    expect(budget.counted).toBe(1);
  });

  it('looks again soon when full only because of attempts still in flight', () => {
    const c = clock();
    const budget = new AttemptBudget({ maxAttempts: 2, windowMs: 60_000, probePollMs: 250, now: c.now });
    budget.tryBegin()?.failed();
    c.advance(budget.delayMs());
    const probe = budget.tryBegin();
    // Full, but the probe may yet prove valid: not a 60 s wait.
    expect(budget.delayMs()).toBe(250);
    probe?.succeeded();
    expect(budget.tryBegin()).toBeDefined();
  });

  it('holds every attempt off for the whole window after HTTP 429', () => {
    const c = clock();
    const budget = new AttemptBudget({ maxAttempts: 8, windowMs: 30_000, now: c.now, random: () => 0 });
    budget.tryBegin()?.failed(true);
    expect(budget.delayMs()).toBe(30_000);
  });

  it('grows the shared delay once per round of concurrent failures, with a cap', () => {
    const c = clock();
    const budget = new AttemptBudget({
      maxAttempts: 10,
      windowMs: 1_000_000,
      initialBackoffMs: 1_000,
      maxBackoffMs: 4_000,
      now: c.now,
      random: () => 0.999,
    });
    const round = [1, 2, 3, 4, 5].map(() => budget.tryBegin());
    for (const t of round) t?.failed();
    // Five concurrent failures advanced the backoff once: ~1 s, not 16 s.
    expect(budget.delayMs()).toBe(999);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      c.advance(budget.delayMs());
      budget.tryBegin()?.failed();
      delays.push(budget.delayMs());
    }
    expect(delays).toEqual([1_998, 3_996, 3_996, 3_996]);
  });

  it('rejects a budget the spec says may block the address', () => {
    expect(() => new AttemptBudget({ maxAttempts: 11 })).toThrow(IngestorError);
    expect(() => new AttemptBudget({ maxAttempts: 0 })).toThrow(/maxAttempts/);
  });
});

describe('classifyFeedFailure', () => {
  const cases: Array<[FeedFailure, string]> = [
    [{ kind: 'http', status: 503 }, 'transient'],
    [{ kind: 'http', status: 500 }, 'transient'],
    [{ kind: 'http', status: 502 }, 'transient'],
    [{ kind: 'network' }, 'transient'],
    [{ kind: 'closed', code: 1006 }, 'transient'],
    [{ kind: 'error-packet', code: 800 }, 'transient'],
    [{ kind: 'http', status: 429 }, 'blocked'],
    [{ kind: 'error-packet', code: 805 }, 'evicted'],
    [{ kind: 'http', status: 400 }, 'fatal'],
    [{ kind: 'http', status: 401 }, 'fatal'],
    [{ kind: 'error-packet', code: 806 }, 'fatal'],
    [{ kind: 'error-packet', code: 807 }, 'fatal'],
    [{ kind: 'error-packet', code: 808 }, 'fatal'],
    [{ kind: 'error-packet', code: 809 }, 'fatal'],
    [{ kind: 'error-packet', code: 810 }, 'fatal'],
  ];
  it.each(cases)('%j is %s', (failure, verdict) => {
    expect(classifyFeedFailure(failure).verdict).toBe(verdict);
  });

  it('makes a refused token a wait for renewal once it can be renewed, but never 806 or 810', () => {
    for (const code of [807, 808, 809])
      expect(classifyFeedFailure({ kind: 'error-packet', code }, { canRenewToken: true }).verdict).toBe(
        'token',
      );
    expect(classifyFeedFailure({ kind: 'http', status: 401 }, { canRenewToken: true }).verdict).toBe('token');
    for (const code of [806, 810])
      expect(classifyFeedFailure({ kind: 'error-packet', code }, { canRenewToken: true }).verdict).toBe(
        'fatal',
      );
  });

  it('charges every attempt that did not end in a working connection, and no eviction or later close', () => {
    expect(classifyFeedFailure({ kind: 'http', status: 503 }).invalidAttempt).toBe(true);
    expect(classifyFeedFailure({ kind: 'network' }).invalidAttempt).toBe(true);
    expect(classifyFeedFailure({ kind: 'error-packet', code: 805 }).invalidAttempt).toBe(false);
    expect(classifyFeedFailure({ kind: 'closed', code: 1006 }).invalidAttempt).toBe(false);
  });
});

describe('Backoff', () => {
  it('draws full jitter in [0, ceiling] with floor 0, capped', () => {
    const low = new Backoff({ initialMs: 100, maxMs: 1_000, floor: 0, random: () => 0 });
    const high = new Backoff({ initialMs: 100, maxMs: 1_000, floor: 0, random: () => 0.999_999 });
    const lows = Array.from({ length: 6 }, () => low.next());
    const highs = Array.from({ length: 6 }, () => high.next());
    expect(lows).toEqual([0, 0, 0, 0, 0, 0]);
    expect(highs).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });
});

/** Trade, Market Status `first`, trade, Market Status `last`. */
function tradesAndStatuses(first: number, last: number): Uint8Array {
  return new FrameBuilder(256)
    .trade(SEGMENT_INX_EQ, 1_000_001, 1.5, 1, 1, 1)
    .marketStatus(SEGMENT_INX_EQ, 0, [1, 0, 0], first)
    .trade(SEGMENT_INX_EQ, 1_000_002, 2.5, 1, 1, 1)
    .marketStatus(SEGMENT_INX_EQ, 0, [1, 0, 0], last)
    .toBytes();
}

describe('lastMarketStatus', () => {
  it('finds the last Market Status among market data, and nothing in a frame without one', () => {
    const frame = tradesAndStatuses(1, 2);
    expect(lastMarketStatus(frame)).toBe(2);
    expect(
      lastMarketStatus(new FrameBuilder(64).trade(SEGMENT_INX_EQ, 7, 1, 1, 1, 1).toBytes()),
    ).toBeUndefined();
    // A cut frame stops the walk where the decoder would.
    expect(lastMarketStatus(frame.subarray(0, 27 + 10))).toBeUndefined();
  });

  // Length byte (byte 9) 1-10 means "the code's fixed size" to the decoder: the scan must step the
  // same way, or it reads the next packet from the wrong offset.
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])(
    'reads the frame as the decoder does with length byte %i',
    (length) => {
      const shortened = tradesAndStatuses(3, 4);
      shortened[9] = length; // the first trade
      shortened[
        PACKET_SIZE[MsgCode.Trade] + PACKET_SIZE[MsgCode.MarketStatus] + PACKET_SIZE[MsgCode.Trade] + 9
      ] = length; // the last status
      const decoder = new PacketCursor(shortened);
      let decoded: number | undefined;
      while (decoder.next()) if (decoder.code === MsgCode.MarketStatus) decoded = decoder.marketStatus;
      expect(decoded).toBe(4);
      expect(lastMarketStatus(shortened)).toBe(decoded);
    },
  );

  it('stops where the decoder stops: a zero length, an unknown code with a short length', () => {
    const frame = new FrameBuilder(128)
      .trade(SEGMENT_INX_EQ, 1, 1, 1, 1, 1)
      .marketStatus(SEGMENT_INX_EQ, 0, [1, 0, 0], 2)
      .toBytes();
    const zero = Uint8Array.from(frame);
    zero[9] = 0;
    expect(lastMarketStatus(zero)).toBeUndefined();
    const unknown = Uint8Array.from(frame);
    unknown[10] = 99;
    unknown[9] = 5;
    expect(lastMarketStatus(unknown)).toBeUndefined();
    unknown[9] = PACKET_SIZE[MsgCode.Trade];
    expect(lastMarketStatus(unknown)).toBe(2);
  });
});

describe('loneErrorCode', () => {
  it('gives the disconnection code of a message that is one Error packet, whatever its length byte says', () => {
    const error = new FrameBuilder(64).error(807).toBytes();
    expect(loneErrorCode(error)).toBe(807);
    for (let length = 1; length <= 10; length++) {
      const shortened = Uint8Array.from(error);
      shortened[9] = length;
      expect(loneErrorCode(shortened)).toBe(807);
    }
  });

  it('gives nothing for market data, a cut or longer message, or a zero length', () => {
    const error = new FrameBuilder(64).error(805).toBytes();
    expect(
      loneErrorCode(new FrameBuilder(64).trade(SEGMENT_INX_EQ, 7, 1, 1, 1, 1).toBytes()),
    ).toBeUndefined();
    expect(loneErrorCode(error.subarray(0, 12))).toBeUndefined();
    expect(loneErrorCode(new FrameBuilder(64).error(805).error(806).toBytes())).toBeUndefined();
    const zero = Uint8Array.from(error);
    zero[9] = 0;
    expect(loneErrorCode(zero)).toBeUndefined();
  });
});

describe('assessFeedReadiness', () => {
  const now = 10_000_000;
  const conn = (over: Partial<ConnectionSnapshot>): ConnectionSnapshot => ({
    index: 0,
    state: 'open',
    reason: 'connected',
    trade: 10,
    ohlc: 0,
    reconnects: 0,
    lastDataAt: now - 1_000,
    stateSince: now - 600_000,
    ...over,
  });
  const base = {
    fatal: undefined,
    marketStatus: undefined,
    startedAt: now - 600_000,
    now,
    silentAfterMs: 30_000,
  };

  it('is ready while data flows', () => {
    expect(assessFeedReadiness({ ...base, connections: [conn({}), conn({ index: 1 })] }).ready).toBe(true);
  });

  it('is not ready, with the reason, when an open connection is silent while the market is open', () => {
    const verdict = assessFeedReadiness({
      ...base,
      marketStatus: 2,
      connections: [conn({}), conn({ index: 1, lastDataAt: now - 45_000 })],
    });
    expect(verdict.ready).toBe(false);
    expect(verdict.reasons).toEqual([
      'connection 1 open but no market data for 45 s (10 subscriptions; market open)',
    ]);
  });

  it('tolerates silence while the market is closed, and on connections without subscriptions', () => {
    const silent = conn({ lastDataAt: now - 3_600_000 });
    expect(assessFeedReadiness({ ...base, marketStatus: 0, connections: [silent] }).ready).toBe(true);
    expect(assessFeedReadiness({ ...base, connections: [conn({ trade: 0, lastDataAt: 0 })] }).ready).toBe(
      true,
    );
  });

  it('gives a connection that just opened the whole allowance', () => {
    const reopened = conn({ lastDataAt: now - 3_600_000, stateSince: now - 5_000 });
    expect(assessFeedReadiness({ ...base, connections: [reopened] }).ready).toBe(true);
  });

  it('is not ready when fatal, or with no open connection', () => {
    const fatal = assessFeedReadiness({ ...base, fatal: 'refused (808)', connections: [conn({})] });
    expect(fatal.reasons).toEqual(['fatal: refused (808)']);
    const down = assessFeedReadiness({ ...base, connections: [conn({ state: 'backoff', stateSince: now })] });
    expect(down.ready).toBe(false);
    expect(down.reasons[0]).toBe('no feed connection is open');
  });
});

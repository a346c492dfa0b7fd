/**
 * Unit tier: the stale watch's bookkeeping on a fake clock. Quiet instruments are stale only while
 * their connection is live and the market open; a gap runs from the last trade (or the moment the
 * instrument could first have traded) and ends at its next trade, at the connection's drop, at the
 * market's close or at shutdown, whichever comes first.
 */
import { describe, expect, it } from 'vitest';
import type { GapInterval } from '../src/gaps/gap-tracker.js';
import { StaleWatcher } from '../src/gaps/stale-watcher.js';

function setup() {
  const clock = { now: 1_000_000 };
  const lastTrade = new Map<number, number>();
  const held = new Map<number, Set<string>>([
    [0, new Set(['11', '12'])],
    [1, new Set(['21'])],
  ]);
  const closed: GapInterval[] = [];
  const watcher = new StaleWatcher({
    staleAfterMs: 1_000,
    lastTradeAt: (id) => lastTrade.get(id),
    instrumentsOf: (c) => held.get(c) ?? new Set(),
    record: (g) => closed.push(g),
    now: () => clock.now,
  });
  const summary = () =>
    closed.map((g) => `${[...(g.only?.trade ?? [])].join()}@${g.connection} ${g.startedAtMs}-${g.endedAtMs}`);
  return { clock, lastTrade, held, closed, watcher, summary };
}

describe('StaleWatcher', () => {
  it('judges nothing before the market is known open, then ends a stale gap at the next trade', () => {
    const { clock, lastTrade, watcher, summary } = setup();
    watcher.link(0, true, clock.now);
    lastTrade.set(11, clock.now);
    clock.now += 5_000;
    watcher.check();
    expect(watcher.openGaps()).toHaveLength(0);

    watcher.market(true, 1_005_000);
    lastTrade.set(12, 1_005_500);
    clock.now = 1_006_200;
    watcher.check();
    // 11: quiet since the open (its last trade is older); 12 traded 700 ms ago.
    expect(watcher.openGaps()).toEqual([{ securityId: 11, connection: 0, startedAtMs: 1_005_000 }]);
    lastTrade.set(11, 1_006_900);
    clock.now = 1_007_000;
    watcher.check();
    expect(summary()).toEqual(['11@0 1005000-1006900']);
    expect(watcher.openGaps()).toEqual([{ securityId: 12, connection: 0, startedAtMs: 1_005_500 }]);
  });

  it('ends open gaps when the connection drops, when the market closes and at shutdown', () => {
    const { clock, watcher, summary, closed } = setup();
    watcher.market(true, clock.now);
    watcher.link(0, true, clock.now);
    watcher.link(1, true, clock.now);
    clock.now += 1_500;
    watcher.check();
    expect(watcher.openGaps().map((g) => g.securityId)).toEqual([11, 12, 21]);
    watcher.link(0, false, 1_001_600);
    expect(summary()).toEqual(['11@0 1000000-1001600', '12@0 1000000-1001600']);
    watcher.market(false, 1_001_700);
    expect(summary()).toContain('21@1 1000000-1001700');
    // Closed market: nothing is stale however long it is quiet.
    clock.now += 60_000;
    watcher.check();
    expect(watcher.openGaps()).toHaveLength(0);
    watcher.market(true, clock.now);
    clock.now += 2_000;
    watcher.check();
    expect(watcher.openGaps().map((g) => g.securityId)).toEqual([21]);
    watcher.stop(clock.now + 10);
    expect(closed.at(-1)).toMatchObject({ cause: 'stale', connection: 1, endedAtMs: clock.now + 10 });
    expect(watcher.openGaps()).toHaveLength(0);
  });

  it('ends the gap of an instrument unsubscribed while stale', () => {
    const { clock, held, watcher, summary } = setup();
    watcher.market(true, clock.now);
    watcher.link(1, true, clock.now);
    clock.now += 1_500;
    watcher.check();
    held.set(1, new Set());
    clock.now += 100;
    watcher.check();
    expect(summary()).toEqual(['21@1 1000000-1001600']);
  });
});

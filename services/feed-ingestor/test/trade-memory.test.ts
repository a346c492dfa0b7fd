/**
 * The repeat guard's lifetime: a reopened connection's snapshots are held to its instruments' last
 * trades until each traded on the new socket or `guardMs` passed since the first chunk after the
 * open went out, however long that chunk was held back (Kafka slow, the write-ahead log's replay).
 */
import { describe, expect, it } from 'vitest';
import { TradeMemory } from '../src/pipeline/trade-memory.js';

describe('TradeMemory repeat guard', () => {
  it('starts its clock with the first chunk sent after the open, not with the open', () => {
    let now = 1_000_000;
    const memory = new TradeMemory({
      instrumentsOf: () => new Set(['11', '12']),
      guardMs: 30_000,
      now: () => now,
    });
    // The last trades known (e.g. from the log's replay): [securityId, volume, ltt, receivedAtMicros].
    memory.record(3, Float64Array.from([11, 500, 1_700_000_000, 1, 12, 70, 1_700_000_001, 1]));
    memory.opened(0);
    // The first chunk goes out 45 s after the open (held back): the guard is still there.
    now += 45_000;
    expect([...(memory.guardFor(0) ?? [])]).toEqual([11, 500, 1_700_000_000, 12, 70, 1_700_000_001]);
    now += 29_000;
    expect(memory.guardFor(0)?.length).toBe(6);
    // 30 s after that first chunk it ends, traded or not.
    now += 2_000;
    expect(memory.guardFor(0)).toBeUndefined();
  });

  it('drops an instrument from the guard once it traded on the new socket', () => {
    const memory = new TradeMemory({ instrumentsOf: () => new Set(['11', '12']) });
    memory.record(3, Float64Array.from([11, 500, 1_700_000_000, 1, 12, 70, 1_700_000_001, 1]));
    memory.opened(0);
    const afterOpen = (performance.timeOrigin + performance.now() + 1) * 1000;
    memory.record(0, Float64Array.from([11, 501, 1_700_000_002, afterOpen]));
    expect([...(memory.guardFor(0) ?? [])]).toEqual([12, 70, 1_700_000_001]);
  });
});

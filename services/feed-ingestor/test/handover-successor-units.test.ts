/**
 * The successor's half of a handover with its parts replaced by recorders: what it claims, opens,
 * holds and releases, and the handover's gap in the ledger written once both the leader's close
 * and its own first frame are known, whichever comes first.
 */
import { describe, expect, it } from 'vitest';
import type { GapInterval } from '../src/gaps/gap-tracker.js';
import type { ControlMessage } from '../src/leader/control-messages.js';
import { HandoverSuccessor } from '../src/leader/handover-successor.js';
import { LeaseFence } from '../src/leader/lease-fence.js';

function successor() {
  const sent: ControlMessage[] = [];
  const gaps: GapInterval[] = [];
  const started: number[] = [];
  const held = new Set<number>();
  const adopted: number[] = [];
  let designated = false;
  let stateWatcher: (index: number, state: string, sinceMs: number) => void = () => undefined;
  const fence = new LeaseFence();
  const part = new HandoverSuccessor({
    member: () => 'me',
    standingBy: () => true,
    send: async (message) => void sent.push(message),
    designate: () => {
      designated = true;
    },
    fence,
    authorityMs: 2_500,
    book: { connections: 5, maxPerConnection: 5_000, place: (_c, _k, ids) => [...ids] },
    pool: {
      startConnection: (index) => void started.push(index),
      watchStates: (watcher) => {
        stateWatcher = watcher;
        return () => undefined;
      },
    },
    pipeline: {
      holdConnection: (c) => void held.add(c),
      releaseConnection: (c) => void held.delete(c),
    },
    adopt: (connection) => void adopted.push(connection),
    recordGap: (interval) => void gaps.push(interval),
    log: () => undefined,
  });
  const socketState = (index: number, state: string, sinceMs = Date.now()) =>
    stateWatcher(index, state, sinceMs);
  return { part, sent, gaps, started, held, adopted, fence, socketState, designated: () => designated };
}

const offer: ControlMessage = {
  type: 'handover-offer',
  id: 'h',
  from: 'leader',
  spare: false,
  connections: [
    { index: 3, trade: ['11', '12'], ohlc: [] },
    { index: 1, trade: ['13'], ohlc: [] },
  ],
};

describe('handover successor', () => {
  it('claims an offer, and on winning the claim opens the oldest connection, holds it and may send', () => {
    const s = successor();
    s.part.onMessage(offer);
    expect(s.sent).toEqual([{ type: 'handover-claim', id: 'h', by: 'me' }]);
    expect(s.started).toEqual([]);
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'me' });
    expect(s.designated()).toBe(true);
    expect(s.started).toEqual([3]);
    expect([...s.held]).toEqual([3]);
    expect(s.fence.open()).toBe(true);
    expect(s.part.takes(3)).toBe(true);
    expect(s.part.takes(1)).toBe(false);
  });

  it('stands aside when another standby claimed first', () => {
    const s = successor();
    s.part.onMessage(offer);
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'other' });
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'me' });
    expect(s.started).toEqual([]);
    expect(s.part.succeeded).toBe(false);
  });

  it('writes the gap of a cut that came before its first frame once that frame comes, from the close to it', async () => {
    const s = successor();
    s.part.onMessage(offer);
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'me' });
    const closedAtMs = Date.now() - 50;
    s.part.onMessage({ type: 'handover-closed', id: 'h', connection: 3, closedAtMs });
    // The next connection opens as soon as the first is closed.
    expect(s.started).toEqual([3, 1]);
    s.part.onMessage({ type: 'handover-cut', id: 'h', connection: 3, last: [[11, 500, 1_700_000_000]] });
    expect(s.adopted).toEqual([3]);
    expect(s.held.has(3)).toBe(false);
    expect(s.gaps).toEqual([]);
    s.part.takes(3);
    expect(s.gaps).toHaveLength(1);
    const [gap] = s.gaps as [GapInterval];
    expect(gap.cause).toBe('handover');
    expect(gap.startedAtMs).toBe(closedAtMs);
    expect(gap.endedAtMs).toBeGreaterThanOrEqual(closedAtMs + 50);
    // The first frame said the connection is live; once only.
    expect(s.sent.filter((m) => m.type === 'handover-ready')).toHaveLength(1);
    s.part.takes(3);
    expect(s.gaps).toHaveLength(1);
  });

  it("starts an eviction's gap when its own socket opened, if the leader noticed the 805 later", () => {
    const s = successor();
    s.part.onMessage(offer);
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'me' });
    const openedAtMs = Date.now();
    s.socketState(3, 'open');
    // The busy leader noticed its 805 only 40 ms after the service let this socket in.
    s.part.onMessage({ type: 'handover-closed', id: 'h', connection: 3, closedAtMs: openedAtMs + 40 });
    s.part.onMessage({ type: 'handover-cut', id: 'h', connection: 3, last: [] });
    s.part.takes(3);
    const [gap] = s.gaps as [GapInterval];
    expect(gap.startedAtMs).toBeGreaterThanOrEqual(openedAtMs);
    expect(gap.startedAtMs).toBeLessThan(openedAtMs + 40);
  });

  it('dates the gap by when the socket thread saw the open and the first frame, not when this thread got to them', () => {
    const s = successor();
    s.part.onMessage(offer);
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'me' });
    const openedAtMs = Date.now() - 300;
    // This thread learns of the open (and of the first frame) long after the socket's thread saw it.
    s.socketState(3, 'open', openedAtMs);
    s.part.onMessage({ type: 'handover-closed', id: 'h', connection: 3, closedAtMs: openedAtMs + 5 });
    s.part.onMessage({ type: 'handover-cut', id: 'h', connection: 3, last: [] });
    expect(s.part.takes(3, openedAtMs + 25)).toBe(true);
    expect(s.gaps).toEqual([
      { connection: 3, cause: 'handover', startedAtMs: openedAtMs, endedAtMs: openedAtMs + 25 },
    ]);
    const ready = s.sent.find((m) => m.type === 'handover-ready');
    expect(ready).toMatchObject({ connection: 3, liveAtMs: openedAtMs + 25 });
  });

  it('writes a zero-length gap when its connection was live before the leader closed its own', () => {
    const s = successor();
    s.part.onMessage({ ...offer, spare: true });
    s.part.onMessage({ type: 'handover-claim', id: 'h', by: 'me' });
    // A spare slot evicts nothing: its socket's open says nothing of when the leader's closed.
    s.socketState(3, 'open');
    s.part.takes(3);
    s.part.onMessage({ type: 'handover-closed', id: 'h', connection: 3, closedAtMs: Date.now() + 10 });
    s.part.onMessage({ type: 'handover-cut', id: 'h', connection: 3, last: [] });
    expect(s.gaps.map((g) => g.endedAtMs - g.startedAtMs)).toEqual([0]);
  });
});

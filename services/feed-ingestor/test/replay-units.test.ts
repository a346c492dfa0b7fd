/**
 * The replay's pure parts: where it may write, how fast, which range, and the identities it gives
 * records (the same on every replay of a source, whatever the range, beyond any live stream).
 */
import { join } from 'node:path';
import { CaptureWriter, encodeFrame, type FeedRecord } from '@feedpipe/codec';
import { isSourceCopy, prefixedTopics, type SourceMark } from '@feedpipe/contracts';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { IngestorError } from '../src/errors.js';
import { captureGroups } from '../src/replay/replay-capture-source.js';
import { identityBytes, storeIdentity } from '../src/replay/replay-identity.js';
import { parseReplayRange } from '../src/replay/replay-range.js';
import { newSourceCounts, type ReplayGroup } from '../src/replay/replay-record.js';
import { type PacerClock, parseReplaySpeed, ReplayPacer } from '../src/replay/replay-speed.js';
import { recordOfRow } from '../src/replay/replay-store-source.js';
import { replayTopics } from '../src/replay/replay-target.js';

const live = prefixedTopics('feed');

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof IngestorError ? error.code : `not typed: ${String(error)}`;
  }
  return undefined;
}

describe('replay target topics', () => {
  it('are the live names behind replay. by default, or behind a prefix given', () => {
    expect(replayTopics({ live })).toEqual({
      trades: 'replay.feed.trades',
      ohlc: 'replay.feed.ohlc',
      reference: 'replay.feed.reference',
      status: 'replay.feed.status',
    });
    expect(replayTopics({ live, prefix: 'scratch-' }).trades).toBe('scratch-feed.trades');
  });

  it('refuse the live topics unless into-live is given, and then are exactly those', () => {
    expect(codeOf(() => replayTopics({ live, prefix: '' }))).toBe('REPLAY_LIVE_TOPICS');
    // A prefix that turns one kind's name into another live topic's is refused too.
    const crossed = { trades: 'x.a', ohlc: 'a', reference: 'x.r', status: 'x.s' };
    expect(codeOf(() => replayTopics({ live: crossed, prefix: 'x.' }))).toBe('REPLAY_LIVE_TOPICS');
    expect(replayTopics({ live, intoLive: true })).toEqual(live);
    expect(codeOf(() => replayTopics({ live, intoLive: true, prefix: 'p.' }))).toBe('REPLAY_INVALID');
  });

  it('refuse a prefix that makes a name Kafka does not allow', () => {
    expect(codeOf(() => replayTopics({ live, prefix: 'has space.' }))).toBe('REPLAY_INVALID');
    expect(codeOf(() => replayTopics({ live, prefix: 'x'.repeat(249) }))).toBe('REPLAY_INVALID');
  });
});

describe('replay speed', () => {
  it('reads 1x, 10x, fractions, max and the earlier `recorded`', () => {
    expect(parseReplaySpeed('1x')).toEqual({ factor: 1 });
    expect(parseReplaySpeed('10x')).toEqual({ factor: 10 });
    expect(parseReplaySpeed('0.5x')).toEqual({ factor: 0.5 });
    expect(parseReplaySpeed('max')).toBe('max');
    expect(parseReplaySpeed('recorded')).toEqual({ factor: 1 });
    for (const bad of ['0x', '10', 'fast', '-2x', '1e3x', '']) {
      expect(
        codeOf(() => parseReplaySpeed(bad)),
        bad,
      ).toBe('REPLAY_INVALID');
    }
  });

  it('holds each group until its recorded offset divided by the factor has passed', async () => {
    let now = 1_000;
    const slept: number[] = [];
    const clock: PacerClock = {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    };
    const pacer = new ReplayPacer({ factor: 10 }, clock);
    const t0 = 1_700_000_000_000_000;
    await pacer.waitFor(t0);
    await pacer.waitFor(t0 + 2_000_000); // 2 s recorded: 200 ms at 10x
    now += 50; // the replay itself took 50 ms
    await pacer.waitFor(t0 + 3_000_000); // due at 300 ms: 50 ms left
    await pacer.waitFor(t0 + 3_000_000); // the same instant: no wait
    expect(slept).toEqual([200, 50]);
    // Late (Kafka was slow): no wait, and nothing skipped to catch up.
    now += 10_000;
    expect(pacer.delayOf(t0 + 4_000_000)).toBe(0);
    expect(new ReplayPacer('max', clock).delayOf(t0 + 9_000_000_000)).toBe(0);
  });
});

describe('replay range', () => {
  it('takes ISO instants with a zone or epoch milliseconds, and needs to after from', () => {
    expect(parseReplayRange('2026-11-27T09:15:00Z', '1795773600000')).toEqual({
      fromMicros: 1_795_770_900_000_000,
      toMicros: 1_795_773_600_000_000,
    });
    expect(parseReplayRange('2026-11-27T14:45:00+05:30', undefined).fromMicros).toBe(1_795_770_900_000_000);
    expect(parseReplayRange(undefined, undefined)).toEqual({ fromMicros: undefined, toMicros: undefined });
    expect(codeOf(() => parseReplayRange('2026-11-27T09:15:00', undefined))).toBe('REPLAY_INVALID');
    expect(codeOf(() => parseReplayRange('yesterday', undefined))).toBe('REPLAY_INVALID');
    expect(codeOf(() => parseReplayRange('2026-11-27T10:00:00Z', '2026-11-27T09:00:00Z'))).toBe(
      'REPLAY_INVALID',
    );
  });
});

const trade = (securityId: number, volume: number, ltt: number): FeedRecord => ({
  type: 'trade',
  segment: 1,
  securityId,
  ltp: 100.5,
  volume,
  ltt,
  lut: ltt,
});

const T0 = 1_764_000_000_000_000;

async function writeCapture(frames: FeedRecord[][]): Promise<string> {
  const file = join(tempDir('replay-units'), 'feed.cap');
  const writer = await CaptureWriter.open(file);
  for (const [i, records] of frames.entries()) writer.write(encodeFrame(records), T0 + i * 1_000_000);
  await writer.close();
  return file;
}

async function groupsOf(file: string, from?: number, to?: number): Promise<ReplayGroup[]> {
  const out: ReplayGroup[] = [];
  const counts = newSourceCounts();
  for await (const group of captureGroups(file, { fromMicros: from, toMicros: to }, counts)) out.push(group);
  return out;
}

describe('replay identities of a capture', () => {
  it('are the same on every replay, whatever the range, and a second replay is a copy to the copy rule', async () => {
    const file = await writeCapture([
      [trade(1, 10, 100), trade(2, 5, 100)],
      [trade(1, 11, 101)],
      [trade(2, 6, 102), trade(1, 12, 102)],
    ]);
    const whole = await groupsOf(file);
    const tail = await groupsOf(file, T0 + 1_000_000);
    expect(whole.map((g) => g.receivedAtMicros)).toEqual([T0, T0 + 1_000_000, T0 + 2_000_000]);
    expect(tail.map((g) => g.records.map((r) => r.identity))).toEqual(
      whole.slice(1).map((g) => g.records.map((r) => r.identity)),
    );
    const first = whole[0]?.records.map((r) => r.identity) ?? [];
    expect(first.map((i) => [i.connection, i.chunk, i.row])).toEqual([
      [0xfffe, 0, 0],
      [0xfffe, 0, 1],
    ]);
    // The sink's rule on one partition: the first replay sets the marks, the second is all copies.
    const marks = new Map<number, SourceMark>();
    const verdicts = (groups: ReplayGroup[]) =>
      groups.flatMap((g) => g.records.map((r) => isSourceCopy(marks, identityBytes(r.identity))));
    expect(verdicts(whole)).toEqual([false, false, false, false, false]);
    expect(verdicts(tail)).toEqual([true, true, true]);
  });

  it('leave out a trade repeated by a resubscription snapshot, and count it', async () => {
    const file = await writeCapture([[trade(1, 10, 100)], [trade(1, 10, 100), trade(1, 11, 101)]]);
    const counts = newSourceCounts();
    const records: FeedRecord[] = [];
    for await (const g of captureGroups(file, { fromMicros: undefined, toMicros: undefined }, counts))
      records.push(...g.records.map((r) => r.record));
    expect(records).toEqual([trade(1, 10, 100), trade(1, 11, 101)]);
    expect(counts).toMatchObject({ read: 2, repeats: 1, outOfRange: 0 });
  });
});

describe('replay identities of stored rows', () => {
  it('split the receive time into stream and chunk and number the rows of one microsecond', () => {
    const micros = 1_764_000_000_123_456;
    const a = storeIdentity(micros, 0);
    const b = storeIdentity(micros, 1);
    expect(a.connection).toBe(0xffff);
    expect(a.run * 2 ** 32 + a.chunk).toBe(micros);
    expect(b).toEqual({ ...a, row: 1 });
    // The next microsecond: same stream, later chunk.
    expect(storeIdentity(micros + 1, 0).chunk).toBe(a.chunk + 1);
  });

  it('map each table row back to the record the ingestor produced', () => {
    const row = {
      t: 0,
      security_id: 7,
      segment: 1,
      a: 101.25,
      b: 0,
      c: 0,
      d: 0,
      i1: '42',
      i2: '1764000000',
      i3: '1764000001',
      market_type: [],
      us: '1',
      kafka_cluster: 'c',
      kafka_partition: 0,
      kafka_offset: '0',
    };
    expect(recordOfRow({ ...row, type: 'trade' })).toEqual({
      type: 'trade',
      segment: 1,
      securityId: 7,
      ltp: 101.25,
      volume: 42,
      ltt: 1_764_000_000,
      lut: 1_764_000_001,
    });
    expect(recordOfRow({ ...row, type: 'circuit_limit', b: 90 })).toMatchObject({ upper: 101.25, lower: 90 });
    expect(recordOfRow({ ...row, type: 'market_status', market_type: [1, 0, 0] })).toMatchObject({
      marketType: [1, 0, 0],
      status: 42,
    });
    expect(recordOfRow({ ...row, type: 'error', i2: '807' })).toMatchObject({ type: 'error', code: 807 });
  });
});

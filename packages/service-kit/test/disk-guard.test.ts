/** The disk guard's state machine over scripted readings: pause below a threshold, resume above it with the margin. */
import { describe, expect, it } from 'vitest';
import { DiskGuard, type DiskReading } from '../src/index.js';

function scripted(readings: Array<DiskReading | Error>): () => Promise<DiskReading> {
  let i = 0;
  return async () => {
    const r = readings[Math.min(i++, readings.length - 1)];
    if (r instanceof Error) throw r;
    return r as DiskReading;
  };
}

const GiB = 1024 ** 3;
const at = (freeGiB: number, totalGiB = 100): DiskReading => ({
  freeBytes: freeGiB * GiB,
  totalBytes: totalGiB * GiB,
  where: 'test',
});

function gauge(): { value: number; set(v: number): void } {
  return {
    value: Number.NaN,
    set(v: number) {
      this.value = v;
    },
  };
}

describe('DiskGuard', () => {
  it('pauses below the percent threshold and resumes only above it plus the margin', async () => {
    const paused = gauge();
    const free = gauge();
    const changes: boolean[] = [];
    const guard = new DiskGuard({
      probe: scripted([at(50), at(9), at(10.5), at(11.5), at(5)]),
      minFreeBytes: 0,
      minFreePercent: 10,
      intervalMs: 60_000,
      gauges: { paused, freeBytes: free },
      onChange: (p) => changes.push(p),
    });
    await guard.check();
    expect(guard.paused).toBe(false);
    expect(paused.value).toBe(0);
    await guard.check();
    expect(guard.paused).toBe(true);
    expect(paused.value).toBe(1);
    expect(free.value).toBe(9 * GiB);
    // 10.5% is above the threshold but inside the margin (11%): still paused.
    await guard.check();
    expect(guard.paused).toBe(true);
    await guard.check();
    expect(guard.paused).toBe(false);
    await guard.check();
    expect(guard.paused).toBe(true);
    expect(changes).toEqual([true, false, true]);
  });

  it('pauses on the byte threshold too, whichever is crossed first', async () => {
    const guard = new DiskGuard({
      probe: scripted([at(3, 10), at(1, 10)]),
      minFreeBytes: 2 * GiB,
      minFreePercent: 5,
      intervalMs: 60_000,
    });
    await guard.check();
    expect(guard.paused).toBe(false);
    await guard.check();
    expect(guard.paused).toBe(true);
  });

  it('keeps its state when a reading fails, and counts the failures', async () => {
    const guard = new DiskGuard({
      probe: scripted([at(1), new Error('unreachable'), at(50)]),
      minFreeBytes: 0,
      minFreePercent: 10,
      intervalMs: 60_000,
    });
    await guard.check();
    await guard.check();
    expect(guard.paused).toBe(true);
    expect(guard.probeErrors).toBe(1);
    await guard.check();
    expect(guard.paused).toBe(false);
    expect(guard.probeErrors).toBe(0);
  });

  it('whenWritable waits while paused and is released by space, by stop() or by an abort', async () => {
    const guard = new DiskGuard({
      probe: scripted([at(1), at(1), at(50)]),
      minFreeBytes: 0,
      minFreePercent: 10,
      intervalMs: 60_000,
    });
    await guard.check();
    let released = false;
    const waiting = guard.whenWritable().then(() => {
      released = true;
    });
    await guard.check();
    await Promise.resolve();
    expect(released).toBe(false);
    await guard.check();
    await waiting;
    expect(released).toBe(true);
    const other = new DiskGuard({
      probe: scripted([at(1)]),
      minFreeBytes: 0,
      minFreePercent: 10,
      intervalMs: 60_000,
    });
    await other.check();
    const controller = new AbortController();
    const aborted = other.whenWritable(controller.signal);
    controller.abort();
    await aborted;
    const stopped = other.whenWritable();
    other.stop();
    await stopped;
    expect(other.paused).toBe(true);
  });

  it('refuses bad options by name', () => {
    const probe = scripted([at(1)]);
    expect(() => new DiskGuard({ probe, minFreeBytes: -1, minFreePercent: 0, intervalMs: 100 })).toThrow(
      /minFreeBytes/,
    );
    expect(() => new DiskGuard({ probe, minFreeBytes: 0, minFreePercent: 100, intervalMs: 100 })).toThrow(
      /minFreePercent/,
    );
    expect(() => new DiskGuard({ probe, minFreeBytes: 0, minFreePercent: 5, intervalMs: 1 })).toThrow(
      /intervalMs/,
    );
  });
});
